package compat

import (
	"errors"
	"fmt"
	"strings"

	"github.com/outboxctl/outboxctl/schemas/avro"
)

// Level is a Confluent Schema Registry compatibility level.
type Level string

// The compatibility levels.
const (
	None               Level = "NONE"
	Backward           Level = "BACKWARD"
	BackwardTransitive Level = "BACKWARD_TRANSITIVE"
	Forward            Level = "FORWARD"
	ForwardTransitive  Level = "FORWARD_TRANSITIVE"
	Full               Level = "FULL"
	FullTransitive     Level = "FULL_TRANSITIVE"
)

// Levels lists every level.
var Levels = []Level{None, Backward, BackwardTransitive, Forward, ForwardTransitive, Full, FullTransitive}

// ErrUnknownLevel is returned by ParseLevel for a name that is no level.
var ErrUnknownLevel = errors.New("unknown compatibility level")

// ParseLevel reads a level name, case-insensitively ("backward_transitive"
// or "BACKWARD_TRANSITIVE"; '-' is accepted for '_').
func ParseLevel(s string) (Level, error) {
	u := Level(strings.ReplaceAll(strings.ToUpper(strings.TrimSpace(s)), "-", "_"))
	for _, l := range Levels {
		if u == l {
			return l, nil
		}
	}
	return "", fmt.Errorf("%w %q (want one of NONE, BACKWARD, BACKWARD_TRANSITIVE, FORWARD, FORWARD_TRANSITIVE, FULL, FULL_TRANSITIVE)", ErrUnknownLevel, s)
}

// Transitive reports whether the level checks every previous version
// rather than the latest one.
func (l Level) Transitive() bool {
	return l == BackwardTransitive || l == ForwardTransitive || l == FullTransitive
}

// Finding is one incompatibility found by CheckLevel, with the previous
// version it was found against and the direction of the check.
type Finding struct {
	Incompatibility
	// Version is the 1-based position in the history of the previous
	// schema the candidate was checked against (history[Version-1]).
	Version int
	// ReaderLabel and WriterLabel are "new" and "old" as Confluent fills
	// them: "new"/"old" when the candidate is the reader (backward), and
	// "old"/"new" when the previous schema is (forward).
	ReaderLabel string
	WriterLabel string
}

// Confluent renders the finding as the registry's verbose message.
func (f Finding) Confluent() string { return f.Incompatibility.Confluent(f.ReaderLabel, f.WriterLabel) }

// Report is the outcome of CheckLevel.
type Report struct {
	Level      Level
	Compatible bool
	// Findings are the incompatibilities in the order Confluent reports
	// them (see CheckLevel); empty, not nil, when Compatible.
	Findings []Finding
	// FailedVersion is the Version the check failed against (0 when
	// compatible).
	FailedVersion int
}

// CheckLevel checks candidate against history (the subject's previous
// versions, oldest first) at level, as Confluent's CompatibilityChecker
// does:
//
//   - NONE, or an empty history: compatible.
//   - BACKWARD, FORWARD, FULL: only the latest previous version.
//   - *_TRANSITIVE: every previous version, newest first, stopping at the
//     first version with findings (so only that version's findings are
//     reported).
//   - BACKWARD: Check(reader=candidate, writer=previous), labels new/old.
//     FORWARD: Check(reader=previous, writer=candidate), labels old/new.
//     FULL: the forward findings first, then the backward ones.
//
// Findings are values: CheckLevel never fails.
func CheckLevel(level Level, candidate avro.Schema, history []avro.Schema) Report {
	rep := Report{Level: level, Compatible: true, Findings: []Finding{}}
	if level == None || len(history) == 0 {
		return rep
	}
	versions := []int{len(history)}
	if level.Transitive() {
		versions = versions[:0]
		for v := len(history); v >= 1; v-- {
			versions = append(versions, v)
		}
	}
	for _, v := range versions {
		prev := history[v-1]
		var fs []Finding
		add := func(res Result, readerLabel, writerLabel string) {
			for _, inc := range res.Incompatibilities {
				fs = append(fs, Finding{Incompatibility: inc, Version: v, ReaderLabel: readerLabel, WriterLabel: writerLabel})
			}
		}
		switch level {
		case Backward, BackwardTransitive:
			add(Check(candidate, prev), "new", "old")
		case Forward, ForwardTransitive:
			add(Check(prev, candidate), "old", "new")
		case Full, FullTransitive:
			add(Check(prev, candidate), "old", "new")
			add(Check(candidate, prev), "new", "old")
		}
		if len(fs) > 0 {
			rep.Compatible = false
			rep.Findings = fs
			rep.FailedVersion = v
			return rep
		}
	}
	return rep
}

// ConfluentMessages are the "messages" Confluent's registry returns for
// this report with verbose=true: each finding as Difference.error(), then
// "{oldSchemaVersion: N}" and "{oldSchema: '<Java string>'}" after the
// backward (or forward) block, and the closing "{validateFields: 'false',
// compatibility: 'LEVEL'}". history must be the slice given to CheckLevel;
// versions are numbered from 1 as registry versions are when none was
// deleted.
func (r Report) ConfluentMessages(history []avro.Schema) []string {
	if r.Compatible {
		return []string{}
	}
	var out []string
	appendOld := func() {
		out = append(out, fmt.Sprintf("{oldSchemaVersion: %d}", r.FailedVersion))
		s := avro.JavaString(history[r.FailedVersion-1])
		if len(s) <= 10*1024 {
			out = append(out, "{oldSchema: '"+s+"'}")
		} else {
			out = append(out, "{oldSchema: <truncated> '"+s[:10*1024]+"...'}")
		}
	}
	full := r.Level == Full || r.Level == FullTransitive
	sawBackward := false
	for _, f := range r.Findings {
		if full && f.ReaderLabel == "new" && !sawBackward {
			sawBackward = true
		}
		out = append(out, f.Confluent())
	}
	// Confluent appends the old schema after the last block only (for FULL
	// the forward block goes without it), and only when that block had
	// findings.
	if !full || sawBackward {
		appendOld()
	}
	out = append(out, fmt.Sprintf("{validateFields: 'false', compatibility: '%s'}", r.Level))
	return out
}
