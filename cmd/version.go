package cmd

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/spf13/cobra"
)

// Set by the linker: -X github.com/outboxctl/outboxctl/cmd.version=… etc.
var (
	version = ""
	commit  = ""
)

// VersionInfo is what `outboxctl version -o json` prints.
type VersionInfo struct {
	Version    string `json:"version"`
	Commit     string `json:"commit"`
	Go         string `json:"go"`
	Librdkafka string `json:"librdkafka"`
}

func buildVersion() VersionInfo {
	v := VersionInfo{Version: version, Commit: commit, Go: runtime.Version()}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && v.Commit == "" {
				v.Commit = s.Value
			}
		}
	}
	if v.Version == "" {
		v.Version = "dev"
	}
	if v.Commit == "" {
		v.Commit = "unknown"
	}
	_, v.Librdkafka = kafka.LibraryVersion()
	return v
}

type versionOptions struct {
	Output string
}

func newVersionCmd(env *Env) *cobra.Command {
	opts := &versionOptions{}
	c := &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit, Go and librdkafka versions",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return runVersion(env, opts)
		},
	}
	addOutputFlag(c, &opts.Output, formatText, textFormats...)
	return c
}

func runVersion(env *Env, opts *versionOptions) error {
	v := buildVersion()
	switch opts.Output {
	case formatJSON, formatYAML:
		return writeStructured(env.IO.Out, opts.Output, v)
	default:
		fmt.Fprintf(env.IO.Out, "outboxctl %s\ncommit:     %s\ngo:         %s\nlibrdkafka: %s\n", v.Version, v.Commit, v.Go, v.Librdkafka)
		return nil
	}
}
