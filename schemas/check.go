package schemas

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/outboxctl/outboxctl/schemas/avro"
	"github.com/outboxctl/outboxctl/schemas/compat"
)

// DefaultLevel is the compatibility level of a subject when the check does
// not ask a registry: within a major version, every new schema must read
// the data of all previous ones.
const DefaultLevel = compat.BackwardTransitive

// ErrBadBaseline is what a previous version that cannot be read or parsed
// unwraps to (bad input, not an incompatibility).
var ErrBadBaseline = errors.New("bad baseline")

// Previous are the previous versions of a subject in a baseline.
type Previous struct {
	// Schemas are the previous versions, oldest first; empty when the
	// subject is new in the baseline.
	Schemas []avro.Schema
	// Versions are their version numbers (registry versions); nil means
	// 1..len(Schemas).
	Versions []int
	// Level is the subject's level in the baseline ("" = the check's
	// level).
	Level compat.Level
	// Source says where the previous versions came from, e.g.
	// "origin/main:schemas/order/OrderCreated.v1.avsc".
	Source string
}

// Baseline is what schemas are checked against: a git ref, a folder, or
// the registry.
type Baseline interface {
	// Name is "git:REF", "dir:PATH" or "registry".
	Name() string
	// Previous returns the previous versions of e's subject.
	Previous(ctx context.Context, e *CatalogEntry) (*Previous, error)
}

// Status is the verdict on one schema against one baseline.
type Status string

// The statuses. Only StatusIncompatible fails the check.
const (
	StatusCompatible   Status = "compatible"
	StatusIncompatible Status = "incompatible"
	// StatusNew: the subject (a new event type or a new major version) has
	// no previous version in the baseline.
	StatusNew Status = "new"
	// StatusAccepted: incompatible, but listed in the accepted-breaks file.
	StatusAccepted Status = "accepted"
	// StatusSkipped: not checked against this baseline (a json-payload
	// outbox against the registry).
	StatusSkipped Status = "skipped"
)

// Problem is one incompatibility, placed in the candidate .avsc file.
type Problem struct {
	// File, Line, Col place the problem in the candidate schema file: the
	// offending field when the location leads to one, else the record.
	File string `json:"file"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
	// Type, Location and Message are Avro Java's (see package compat).
	Type     string `json:"type"`
	Location string `json:"location"`
	Message  string `json:"message"`
	// Direction is "backward" (the new schema reads old data) or
	// "forward" (old readers read new data).
	Direction string `json:"direction"`
	// Version is the previous version the problem was found against.
	Version int `json:"version"`
}

// CheckResult is the verdict on one catalog entry against one baseline.
type CheckResult struct {
	Subject   string `json:"subject"`
	EventType string `json:"eventType"`
	Major     int    `json:"major"`
	Record    string `json:"record"`
	File      string `json:"file"`
	// Line and Col are the top of the candidate's record.
	Line    int    `json:"line"`
	Col     int    `json:"col"`
	Against string `json:"against"`
	Level   string `json:"level,omitempty"`
	Status  Status `json:"status"`
	// Fingerprint is the candidate's CRC-64-AVRO fingerprint, 16 hex
	// digits (what an accepted break may name).
	Fingerprint string `json:"fingerprint"`
	// Previous is where the previous versions came from and how many.
	Previous      string `json:"previous,omitempty"`
	PreviousCount int    `json:"previousVersions"`
	// Problems are the incompatibilities (incompatible and accepted).
	Problems []Problem `json:"problems"`
	// Accepted is the accepted break that let an incompatibility through.
	Accepted *AcceptedBreak `json:"accepted,omitempty"`
	// Note explains a skip or a new subject.
	Note string `json:"note,omitempty"`
}

// CheckReport is the outcome of CheckCatalog.
type CheckReport struct {
	// Compatible is false when any result is incompatible.
	Compatible bool          `json:"compatible"`
	Results    []CheckResult `json:"results"`
	Summary    Summary       `json:"summary"`
	// Unused are accepted breaks that matched no result (stale entries).
	Unused []AcceptedBreak `json:"unusedAcceptedBreaks,omitempty"`
}

// Summary counts results by status.
type Summary struct {
	Compatible   int `json:"compatible"`
	Incompatible int `json:"incompatible"`
	New          int `json:"new"`
	Accepted     int `json:"accepted"`
	Skipped      int `json:"skipped"`
}

// CheckOptions tune CheckCatalog.
type CheckOptions struct {
	// Level applies where the baseline has none (git, folder), default
	// DefaultLevel.
	Level compat.Level
	// Accepted are the accepted breaks (may be nil).
	Accepted *AcceptedBreaks
}

// CheckCatalog checks every schema of the catalog against every baseline
// with package compat at the subject's level. A subject without previous
// versions is StatusNew, an incompatibility listed in opts.Accepted is
// StatusAccepted; both pass. Findings are values: the error is only for a
// baseline that cannot be read (git, registry: operational) or parsed
// (ErrBadBaseline).
func CheckCatalog(ctx context.Context, cat *Catalog, baselines []Baseline, opts CheckOptions) (*CheckReport, error) {
	if opts.Level == "" {
		opts.Level = DefaultLevel
	}
	rep := &CheckReport{Compatible: true, Results: []CheckResult{}}
	used := map[*AcceptedBreak]bool{}
	for _, b := range baselines {
		for _, e := range cat.Entries {
			res, err := checkEntry(ctx, e, b, opts, used)
			if err != nil {
				return nil, err
			}
			rep.Results = append(rep.Results, res)
			switch res.Status {
			case StatusCompatible:
				rep.Summary.Compatible++
			case StatusIncompatible:
				rep.Summary.Incompatible++
				rep.Compatible = false
			case StatusNew:
				rep.Summary.New++
			case StatusAccepted:
				rep.Summary.Accepted++
			case StatusSkipped:
				rep.Summary.Skipped++
			}
		}
	}
	if opts.Accepted != nil {
		for i := range opts.Accepted.Accepted {
			if ab := &opts.Accepted.Accepted[i]; !used[ab] {
				rep.Unused = append(rep.Unused, *ab)
			}
		}
	}
	return rep, nil
}

// Fingerprint is avro.Fingerprint64(s), the CRC-64-AVRO (Rabin)
// fingerprint of s's Parsing Canonical Form, as 16 lower-case hex digits:
// the fingerprint of CheckResult and the reports. (resolve.SchemaKey, a
// hash of the whole schema, is another thing.)
func Fingerprint(s avro.Schema) string { return fmt.Sprintf("%016x", avro.Fingerprint64(s)) }

func checkEntry(ctx context.Context, e *CatalogEntry, b Baseline, opts CheckOptions, used map[*AcceptedBreak]bool) (CheckResult, error) {
	top := e.Schema.Position()
	res := CheckResult{
		Subject: e.Subject, EventType: e.EventType, Major: e.Major, Record: e.Record,
		File: e.File, Line: top.Line, Col: top.Col, Against: b.Name(),
		Fingerprint: Fingerprint(e.Schema), Problems: []Problem{},
	}
	if b.Name() == registryBaselineName && !e.Registered() {
		res.Status = StatusSkipped
		res.Note = fmt.Sprintf("outbox %q has payloadFormat %s: its schemas are not in the registry", e.Outbox, e.PayloadFormat)
		return res, nil
	}
	prev, err := b.Previous(ctx, e)
	if err != nil {
		return res, fmt.Errorf("check %s against %s: %w", e.Subject, b.Name(), err)
	}
	level := opts.Level
	if prev.Level != "" {
		level = prev.Level
	}
	res.Level = string(level)
	res.Previous = prev.Source
	res.PreviousCount = len(prev.Schemas)
	if len(prev.Schemas) == 0 {
		res.Status = StatusNew
		if e.Major > 1 {
			res.Note = fmt.Sprintf("new major version %d: a new subject", e.Major)
		} else {
			res.Note = "new subject"
		}
		return res, nil
	}
	rep := compat.CheckLevel(level, e.Schema, prev.Schemas)
	if rep.Compatible {
		res.Status = StatusCompatible
		return res, nil
	}
	failed := rep.FailedVersion
	if prev.Versions != nil && failed >= 1 && failed <= len(prev.Versions) {
		failed = prev.Versions[failed-1]
	}
	for _, f := range rep.Findings {
		p := Problem{Type: string(f.Type), Location: f.Location, Message: f.Message, Version: failed, Direction: "backward"}
		if f.ReaderLabel == "old" {
			p.Direction = "forward"
		}
		pos := problemPos(e, f)
		p.File, p.Line, p.Col = e.File, pos.Line, pos.Col
		res.Problems = append(res.Problems, p)
	}
	if ab := opts.Accepted.match(e.Subject, res.Fingerprint, failed); ab != nil {
		used[ab] = true
		res.Status = StatusAccepted
		res.Accepted = ab
		return res, nil
	}
	res.Status = StatusIncompatible
	return res, nil
}

// problemPos places a finding in the candidate file: in a backward check
// the candidate is the reader and the location is a path into it; in a
// forward check the location is a path into the old schema, so the field
// of the same name in the candidate is used, else the candidate fragment.
func problemPos(e *CatalogEntry, f compat.Finding) avro.Position {
	top := e.Schema.Position()
	if f.ReaderLabel == "new" {
		if p := locate(e.Schema, f.Location); p.Line > 0 {
			return p
		}
		if f.Reader != nil && f.Reader.Position().File == e.File && f.Reader.Position().Line > 0 {
			return f.Reader.Position()
		}
		return top
	}
	if f.Writer != nil && f.Writer.Position().File == e.File && f.Writer.Position().Line > 0 {
		if r, ok := f.Writer.(*avro.Record); ok && f.Type == compat.ReaderFieldMissingDefaultValue {
			// The candidate lacks the old field: point at the record.
			return r.Position()
		}
		return f.Writer.Position()
	}
	return top
}

// locate walks a compat location ("/fields/2/type/items") into s and
// returns the position of the deepest node it reaches. Numeric tokens
// other than field indexes are writer union branches: they stay put.
func locate(s avro.Schema, location string) avro.Position {
	pos := s.Position()
	if location == "" || location == "/" {
		return pos
	}
	toks := strings.Split(strings.TrimPrefix(location, "/"), "/")
	cur := s
	for i := 0; i < len(toks); i++ {
		tok := strings.ReplaceAll(strings.ReplaceAll(toks[i], "~1", "/"), "~0", "~")
		switch tok {
		case "fields":
			rec, ok := cur.(*avro.Record)
			if !ok || i+1 >= len(toks) {
				return pos
			}
			n, err := strconv.Atoi(toks[i+1])
			if err != nil {
				return pos
			}
			i++
			var fld *avro.Field
			for _, fl := range rec.Fields {
				if fl.Index == n {
					fld = fl
				}
			}
			if fld == nil {
				return pos
			}
			if fld.Pos.Line > 0 {
				pos = fld.Pos
			}
			if i+1 < len(toks) && toks[i+1] == "type" {
				i++
				cur = fld.Type
				// Keep the field's position: it names the field.
				continue
			}
			return pos
		case "items":
			if a, ok := cur.(*avro.Array); ok {
				cur = a.Items
			}
		case "values":
			if m, ok := cur.(*avro.Map); ok {
				cur = m.Values
			}
		default:
			// name, size, symbols, union branch indexes: stay.
		}
	}
	return pos
}
