//go:build !unix

package bench

import "time"

func processCPU() time.Duration { return 0 }

func loadAverage() float64 { return -1 }
