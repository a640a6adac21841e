// Command outboxctl is the CLI of the outboxctl toolkit. See package
// github.com/outboxctl/outboxctl/cmd for the command tree.
package main

import (
	"os"

	"github.com/outboxctl/outboxctl/cmd"
)

func main() { os.Exit(cmd.Main()) }
