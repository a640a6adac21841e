package cmd_test

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/outboxctl/outboxctl/cmd"
	"github.com/outboxctl/outboxctl/schemas"
	"github.com/outboxctl/outboxctl/spec"
)

// TestHelpSubjectsExist: every subject name in the help texts is one the
// naming strategy produces for the example spec (examples/outbox.yaml).
func TestHelpSubjectsExist(t *testing.T) {
	sp, err := spec.Load("../examples/outbox.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cat, err := schemas.BuildCatalog(sp)
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, s := range cat.Subjects() {
		known[s] = true
	}
	subjectRe := regexp.MustCompile(`outbox\.event\.[A-Za-z]+-[A-Za-z0-9_.]+`)
	var buf bytes.Buffer
	root := cmd.NewRootCmd(&cmd.Env{IO: cmd.IOStreams{In: &buf, Out: &buf, ErrOut: &buf}, Getenv: func(string) string { return "" }})
	n := 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, text := range []string{c.Long, c.Example} {
			for _, s := range subjectRe.FindAllString(text, -1) {
				n++
				if !known[strings.TrimRight(s, ".")] {
					t.Errorf("%s: help names subject %s, which the example spec does not produce (have %v)", c.CommandPath(), s, cat.Subjects())
				}
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	if n == 0 {
		t.Fatal("no subject names found in the help texts")
	}
}
