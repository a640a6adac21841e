package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/outboxctl/outboxctl/consumer/dlq"
)

type dlqReplayOptions struct {
	Topic          string
	Types          []string
	Reasons        []string
	OriginalTopics []string
	Since, Until   string
	TypeHeader     string
	Yes            bool
	Output         string
	Kafka          kafkaClientFlags
}

func newDLQCmd(env *Env) *cobra.Command {
	c := &cobra.Command{
		Use:   "dlq <command>",
		Short: "Operate on dead-letter topics of the consumer SDK",
	}
	c.AddCommand(newDLQReplayCmd(env))
	return c
}

func newDLQReplayCmd(env *Env) *cobra.Command {
	opts := &dlqReplayOptions{}
	c := &cobra.Command{
		Use:   "replay --topic DLQ [--type T] [--reason R] [--original-topic T] [--since TIME] [--until TIME] [--yes]",
		Short: "Re-publish dead-lettered records to their original topic",
		Long: `Replay reads a dead-letter topic written by the consumer SDK's DLQ middleware
from its beginning up to the end offsets read at the start (records
dead-lettered meanwhile wait for the next run), selects records by event
type (--type, the --type-header header), reason (--reason permanent|failed),
original topic (--original-topic) and the time they were dead-lettered
(--since inclusive, --until exclusive; RFC 3339 or a duration back from now
such as 24h), and produces each to its original topic and partition with its
key, value and headers minus the outbox.dlq.* ones. The event id header
stays, so a consumer with an inbox absorbs a record replayed twice. Repeated
flags select any of their values.

Without --yes it is a dry run: it reads and counts, and produces nothing.
Nothing is deleted from the DLQ topic and no consumer offset is committed:
narrow a second run with the filters. Exit 1 when the DLQ topic cannot be read
or a replayed record is not acknowledged (the counts say how many were).`,
		Example: `  $ outboxctl dlq replay --topic billing.dlq --type OrderCreated
  $ outboxctl dlq replay --topic billing.dlq --reason failed --since 2h --yes -o json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return runDLQReplay(c.Context(), env, opts)
		},
	}
	fs := c.Flags()
	fs.StringVar(&opts.Topic, "topic", "", "the dead-letter topic (required)")
	fs.StringArrayVar(&opts.Types, "type", nil, "replay only events of this type (repeatable)")
	fs.StringArrayVar(&opts.Reasons, "reason", nil, "replay only records dead-lettered for this reason: permanent or failed (repeatable)")
	fs.StringArrayVar(&opts.OriginalTopics, "original-topic", nil, "replay only records from this topic (repeatable)")
	fs.StringVar(&opts.Since, "since", "", "replay only records dead-lettered at or after this time (RFC 3339, or a duration back from now: 24h)")
	fs.StringVar(&opts.Until, "until", "", "replay only records dead-lettered before this time (RFC 3339, or a duration back from now)")
	fs.StringVar(&opts.TypeHeader, "type-header", "eventType", "the event type header of the records")
	fs.BoolVar(&opts.Yes, "yes", false, "produce the records (without it: a dry run that counts them)")
	addOutputFlag(c, &opts.Output, formatText, textFormats...)
	addKafkaClientFlags(fs, &opts.Kafka)
	return c
}

// parseSince reads an RFC 3339 time or a duration back from now.
func parseSince(flag, v string, now time.Time) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, nil
	}
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, UsageError(fmt.Errorf("--%s %q: want an RFC 3339 time (2026-12-04T10:00:00Z) or a duration back from now (24h)", flag, v))
}

func runDLQReplay(ctx context.Context, env *Env, opts *dlqReplayOptions) error {
	if opts.Topic == "" {
		return UsageError(errors.New("--topic names the dead-letter topic"))
	}
	for _, r := range opts.Reasons {
		if r != "permanent" && r != "failed" {
			return UsageError(fmt.Errorf("--reason %q: want permanent or failed", r))
		}
	}
	now := time.Now()
	since, err := parseSince("since", opts.Since, now)
	if err != nil {
		return err
	}
	until, err := parseSince("until", opts.Until, now)
	if err != nil {
		return err
	}
	if !since.IsZero() && !until.IsZero() && !since.Before(until) {
		return UsageError(fmt.Errorf("--since %s is not before --until %s", since.Format(time.RFC3339), until.Format(time.RFC3339)))
	}
	kc, err := env.kafkaConfig(&opts.Kafka, "")
	if err != nil {
		return err
	}
	timeout, err := env.requestTimeout()
	if err != nil {
		return err
	}
	rep, err := dlq.Replay(ctx, dlq.Options{
		Topic: opts.Topic,
		Filter: dlq.Filter{
			OriginalTopics: opts.OriginalTopics, Types: opts.Types, Reasons: opts.Reasons,
			Since: since, Until: until, TypeHeader: opts.TypeHeader,
		},
		DryRun:  !opts.Yes,
		Kafka:   kc,
		Timeout: timeout,
	})
	if errors.Is(err, dlq.ErrRead) && rep.Read == 0 {
		return fmt.Errorf("%w (bootstrap servers %s)", err, kc.BootstrapServers)
	}
	if rerr := renderReplay(env.IO.Out, opts.Output, rep); rerr != nil && err == nil {
		err = rerr
	}
	if err == nil && !opts.Yes && opts.Output == formatText {
		fmt.Fprintln(env.IO.ErrOut, "outboxctl: dry run; nothing produced (--yes replays)")
	}
	return err
}

func renderReplay(w io.Writer, format string, rep dlq.Report) error {
	if isStructured(format) {
		return writeStructured(w, format, rep)
	}
	var b strings.Builder
	verb := "replayed"
	n := rep.Replayed
	if rep.DryRun {
		verb, n = "would replay", rep.Selected-rep.Unreplayable
	}
	fmt.Fprintf(&b, "DLQ %s: %d read, %d selected, %s %d", rep.Topic, rep.Read, rep.Selected, verb, n)
	if rep.Unreplayable > 0 {
		fmt.Fprintf(&b, ", %d without an original topic header (skipped)", rep.Unreplayable)
	}
	b.WriteString(".\n")
	keys := func(m map[string]int) []string {
		var out []string
		for k := range m {
			out = append(out, k)
		}
		sort.Strings(out)
		return out
	}
	for _, k := range keys(rep.ByTopic) {
		fmt.Fprintf(&b, "  topic %s: %d\n", k, rep.ByTopic[k])
	}
	for _, k := range keys(rep.ByType) {
		name := k
		if name == "" {
			name = "(no type header)"
		}
		fmt.Fprintf(&b, "  type %s: %d\n", name, rep.ByType[k])
	}
	_, err := io.WriteString(w, b.String())
	return err
}
