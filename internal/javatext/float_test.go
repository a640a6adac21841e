package javatext

import (
	"bufio"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestFormatDouble(t *testing.T) {
	t.Parallel()
	tests := []struct {
		f    float64
		want string
	}{
		{1, "1.0"}, {1.5, "1.5"}, {-2.25, "-2.25"}, {100, "100.0"},
		{0, "0.0"}, {math.Copysign(0, -1), "-0.0"},
		{math.NaN(), "NaN"}, {math.Inf(1), "Infinity"}, {math.Inf(-1), "-Infinity"},
		// the plain range is [1.0E-3, 1.0E7)
		{0.001, "0.001"}, {math.Nextafter(0.001, 0), "9.999999999999998E-4"}, {0.0001, "1.0E-4"},
		{1234567, "1234567.0"}, {math.Nextafter(1e7, 0), "9999999.999999998"}, {1e7, "1.0E7"},
		{12345678.9, "1.23456789E7"}, {1e20, "1.0E20"}, {-2.5e300, "-2.5E300"}, {1.5e-5, "1.5E-5"},
		{sum(0.1, 0.2), "0.30000000000000004"}, {0.3, "0.3"}, {2e-3, "0.002"},
		{math.MaxFloat64, "1.7976931348623157E308"}, {2.2250738585072014e-308, "2.2250738585072014E-308"},
		// subnormals: the closest of the one- or two-digit decimals
		{5e-324, "4.9E-324"}, {1e-322, "9.9E-323"}, {2e-323, "2.0E-323"},
		// JDK 17 prints 1.9999999999999998E23, 9.999999999999999E22 and 8.409999999999999E21
		{2e23, "2.0E23"}, {1e23, "1.0E23"}, {8.41e21, "8.41E21"},
	}
	for _, tt := range tests {
		if got := FormatDouble(tt.f); got != tt.want {
			t.Errorf("FormatDouble(%v) = %s, want %s", tt.f, got, tt.want)
		}
		if got := string(AppendDouble([]byte("x"), tt.f)); got != "x"+tt.want {
			t.Errorf("AppendDouble(%v) = %s, want x%s", tt.f, got, tt.want)
		}
	}
}

func TestFormatFloat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		f    float32
		want string
	}{
		{0.1, "0.1"}, {1e7, "1.0E7"}, {9999999, "9999999.0"}, {0.001, "0.001"}, {1e-4, "1.0E-4"},
		{33554432, "3.3554432E7"}, {1.2345678e7, "1.2345678E7"},
		{math.MaxFloat32, "3.4028235E38"}, {math.SmallestNonzeroFloat32, "1.4E-45"}, {3.4e-44, "3.4E-44"},
		{float32(math.Copysign(0, -1)), "-0.0"}, {float32(math.Inf(-1)), "-Infinity"},
		// JDK 17 prints 1.09951163E12 and 1.17549435E-38 (not the shortest)
		{1.09951163e12, "1.0995116E12"}, {1.17549435e-38, "1.1754944E-38"},
	}
	for _, tt := range tests {
		if got := FormatFloat(tt.f); got != tt.want {
			t.Errorf("FormatFloat(%v) = %s, want %s", tt.f, got, tt.want)
		}
		if got := string(AppendFloat(nil, tt.f)); got != tt.want {
			t.Errorf("AppendFloat(%v) = %s, want %s", tt.f, got, tt.want)
		}
	}
}

func TestAppendJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		got, want string
	}{
		{string(AppendJSONDouble(nil, math.NaN())), `"NaN"`},
		{string(AppendJSONDouble(nil, math.Inf(1))), `"Infinity"`},
		{string(AppendJSONDouble(nil, math.Inf(-1))), `"-Infinity"`},
		{string(AppendJSONDouble(nil, 1e7)), `1.0E7`},
		{string(AppendJSONFloat(nil, float32(math.NaN()))), `"NaN"`},
		{string(AppendJSONFloat(nil, 0.1)), `0.1`},
	}
	for i, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%d: got %s, want %s", i, tt.got, tt.want)
		}
	}
}

// TestJDK25Vectors compares with testdata/jdk25_tostring.txt: Double.toString
// (D, R) and Float.toString (F, S) of hand-picked and random bit patterns as
// printed by Temurin 25.0 (lines "<kind> <raw bits> <string>").
func TestJDK25Vectors(t *testing.T) {
	t.Parallel()
	f, err := os.Open("testdata/jdk25_tostring.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		if len(fields) != 3 {
			t.Fatalf("testdata/jdk25_tostring.txt:%d: malformed line", line)
		}
		bits, err := strconv.ParseInt(fields[1], 10, 64)
		if err != nil {
			t.Fatalf("testdata/jdk25_tostring.txt:%d: %v", line, err)
		}
		var got string
		switch fields[0] {
		case "D", "R":
			got = FormatDouble(math.Float64frombits(uint64(bits)))
		case "F", "S":
			got = FormatFloat(math.Float32frombits(uint32(bits)))
		default:
			t.Fatalf("testdata/jdk25_tostring.txt:%d: kind %q", line, fields[0])
		}
		if got != fields[2] {
			t.Errorf("testdata/jdk25_tostring.txt:%d: bits %s: got %s, want %s", line, fields[1], got, fields[2])
		}
		n++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 2000 {
		t.Fatalf("only %d vectors", n)
	}
}

// TestRoundTrip: every finite value prints as a decimal that parses back to
// the same value.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	for i := uint64(0); i < 20000; i++ {
		bits := i * 0x9E3779B97F4A7C15 // spread over the bit patterns
		d := math.Float64frombits(bits)
		if math.IsNaN(d) || math.IsInf(d, 0) {
			continue
		}
		if back, err := strconv.ParseFloat(FormatDouble(d), 64); err != nil || back != d {
			t.Errorf("double %x: %s parses back as %v (%v)", bits, FormatDouble(d), back, err)
		}
		f := math.Float32frombits(uint32(bits >> 32))
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			continue
		}
		if back, err := strconv.ParseFloat(FormatFloat(f), 32); err != nil || float32(back) != f {
			t.Errorf("float %x: %s parses back as %v (%v)", bits>>32, FormatFloat(f), back, err)
		}
	}
}

func BenchmarkAppendDouble(b *testing.B) {
	buf := make([]byte, 0, 32)
	for i := 0; i < b.N; i++ {
		buf = AppendDouble(buf[:0], 12345.678)
	}
}

// sum keeps 0.1+0.2 from being folded into the constant 0.3.
func sum(a, b float64) float64 { return a + b }
