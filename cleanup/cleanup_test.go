package cleanup_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/cleanup"
	"github.com/outboxctl/outboxctl/connectorconfig/connect"
	"github.com/outboxctl/outboxctl/spec"
)

func TestBinlogPosLess(t *testing.T) {
	t.Parallel()
	cases := []struct {
		a, b cleanup.BinlogPos
		less bool
	}{
		{cleanup.BinlogPos{"mysql-bin.000002", 10}, cleanup.BinlogPos{"mysql-bin.000002", 11}, true},
		{cleanup.BinlogPos{"mysql-bin.000002", 11}, cleanup.BinlogPos{"mysql-bin.000002", 11}, false},
		{cleanup.BinlogPos{"mysql-bin.000009", 900}, cleanup.BinlogPos{"mysql-bin.000010", 4}, true},
		{cleanup.BinlogPos{"mysql-bin.000010", 4}, cleanup.BinlogPos{"mysql-bin.000009", 900}, false},
	}
	for _, tc := range cases {
		if got := tc.a.Less(tc.b); got != tc.less {
			t.Errorf("%v < %v = %v, want %v", tc.a, tc.b, got, tc.less)
		}
	}
}

func TestBinlogOffset(t *testing.T) {
	t.Parallel()
	got, err := cleanup.BinlogOffset(connect.Offsets{Offsets: []connect.Offset{{
		Partition: map[string]any{"server": "x"},
		Offset:    map[string]any{"file": "mysql-bin.000002", "pos": float64(990620), "gtids": "0-1-55"},
	}}})
	if err != nil || got != (cleanup.BinlogPos{"mysql-bin.000002", 990620}) {
		t.Errorf("offset: %v %v", got, err)
	}
	if _, err := cleanup.BinlogOffset(connect.Offsets{}); !errors.Is(err, cleanup.ErrNotConfirmed) {
		t.Errorf("no offsets: %v, want ErrNotConfirmed", err)
	}
}

// TestRunSkipsAndRefuses: outboxes whose rows something else removes are
// skipped without touching a database; MySQL and bad options are errors.
func TestRunSkipsAndRefuses(t *testing.T) {
	t.Parallel()
	pg := func(mod func(o *spec.Outbox)) *spec.Outbox {
		o := &spec.Outbox{Name: "o", Database: spec.Database{Kind: spec.Postgres}, Schema: "public", Table: "outbox"}
		mod(o)
		return o
	}
	cases := []struct {
		name    string
		o       *spec.Outbox
		opts    cleanup.Options
		skipped string
		err     error
	}{
		{"relay", pg(func(o *spec.Outbox) { o.Relay = &spec.RelaySpec{} }), cleanup.Options{}, "published by the relay", nil},
		{"delete after insert", pg(func(o *spec.Outbox) { o.Writer = &spec.WriterSpec{DeleteAfterInsert: true} }), cleanup.Options{}, "deleteAfterInsert", nil},
		{"mysql", pg(func(o *spec.Outbox) { o.Database.Kind = spec.MySQL }), cleanup.Options{}, "", cleanup.ErrUnsupported},
		{"negative age", pg(func(*spec.Outbox) {}), cleanup.Options{OlderThan: -1}, "", cleanup.ErrInvalid},
		{"no slot", pg(func(*spec.Outbox) {}), cleanup.Options{}, "", cleanup.ErrInvalid},
		{"mariadb without offsets", pg(func(o *spec.Outbox) { o.Database.Kind = spec.MariaDB }), cleanup.Options{}, "", cleanup.ErrInvalid},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.opts.Outbox = tc.o
			res, err := cleanup.Run(context.Background(), nil, tc.opts)
			if !errors.Is(err, tc.err) || tc.err == nil && err != nil {
				t.Fatalf("err %v, want %v", err, tc.err)
			}
			if !strings.Contains(res.Skipped, tc.skipped) || tc.skipped == "" && res.Skipped != "" {
				t.Errorf("skipped %q, want %q", res.Skipped, tc.skipped)
			}
		})
	}
}

// TestOlderThanFor (#27): without --older-than, cleanup deletes rows past
// the retention the spec declares (provisioning.OldestRowLimit, the age
// doctor and the exporter allow the oldest kept row), and past
// DefaultOlderThan when it declares none.
func TestOlderThanFor(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		o    spec.Outbox
		want time.Duration
	}{
		{"no retention", spec.Outbox{Name: "o"}, cleanup.DefaultOlderThan},
		{"retention 72h", spec.Outbox{Name: "o", Retention: "72h"}, 72 * time.Hour},
		{"retention 30m", spec.Outbox{Name: "o", Retention: "30m"}, 30 * time.Minute},
		{"invalid retention", spec.Outbox{Name: "o", Retention: "soon"}, cleanup.DefaultOlderThan},
		{"relay", spec.Outbox{Name: "o", Relay: &spec.RelaySpec{}}, cleanup.DefaultOlderThan},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := cleanup.OlderThanFor(&tc.o); got != tc.want {
				t.Errorf("OlderThanFor = %s, want %s", got, tc.want)
			}
		})
	}
}
