package schemas

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/outboxctl/outboxctl/spec"
)

// DefaultAcceptedBreaksFile is where `schema check` looks for accepted
// breaks, relative to the spec file's folder.
const DefaultAcceptedBreaksFile = "schemas/accepted-breaks.yaml"

// AcceptedBreak lets one intentional incompatible change through the
// check. It matches a result of the subject when Fingerprint equals the
// candidate schema's fingerprint (CRC-64-AVRO of its canonical form, 16
// hex digits, as `schema check` prints it), or when Version equals the
// previous version the break was found against (the registry version with
// --against-registry; 1 for the single previous file of a git ref or a
// folder). Reason is required.
type AcceptedBreak struct {
	Subject     string `yaml:"subject" json:"subject"`
	Version     int    `yaml:"version" json:"version,omitempty"`
	Fingerprint string `yaml:"fingerprint" json:"fingerprint,omitempty"`
	Reason      string `yaml:"reason" json:"reason"`
	// Pos is file:line:col of the entry.
	Pos string `yaml:"-" json:"pos,omitempty"`
}

// AcceptedBreaks is the accepted-breaks file:
//
//	accepted:
//	  - subject: outbox.event.Order-com.example.order.v1.OrderCreated
//	    fingerprint: 9d2c0f6a1b3e4d57
//	    reason: drop totalCents; no consumer reads it (#123)
type AcceptedBreaks struct {
	File     string          `yaml:"-" json:"file"`
	Accepted []AcceptedBreak `yaml:"accepted" json:"accepted"`
}

// ErrBadAcceptedBreaks is what errors of LoadAcceptedBreaks unwrap to.
var ErrBadAcceptedBreaks = errors.New("bad accepted-breaks file")

// MaxAcceptedBreaksSize bounds the accepted-breaks file LoadAcceptedBreaks
// reads (a regular file; /dev/zero or a FIFO is refused).
const MaxAcceptedBreaksSize = 4 << 20

// LoadAcceptedBreaks reads an accepted-breaks file. A missing file is an
// error (errors.Is(err, fs.ErrNotExist)); unknown keys, a missing subject
// or reason, or neither version nor fingerprint are ErrBadAcceptedBreaks
// with file:line:col.
func LoadAcceptedBreaks(path string) (*AcceptedBreaks, error) {
	data, err := spec.ReadFileLimit(path, MaxAcceptedBreaksSize)
	if err != nil {
		return nil, fmt.Errorf("accepted breaks: %w", err)
	}
	return ParseAcceptedBreaks(path, data)
}

// ParseAcceptedBreaks parses an accepted-breaks file's content; name is
// used in positions.
func ParseAcceptedBreaks(name string, data []byte) (*AcceptedBreaks, error) {
	out := &AcceptedBreaks{File: name}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		pos, msg, _ := spec.LocateYAML(data, err)
		return nil, fmt.Errorf("%s:%d:%d: %w: yaml: %s", name, pos.Line, pos.Col, ErrBadAcceptedBreaks, msg)
	}
	if len(doc.Content) == 0 {
		return out, nil
	}
	var errs []error
	bad := func(n *yaml.Node, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s:%d:%d: %w: %s", name, n.Line, n.Column, ErrBadAcceptedBreaks, fmt.Sprintf(format, args...)))
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		bad(root, "want a mapping with the key \"accepted\"")
		return nil, errors.Join(errs...)
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if k.Value != "accepted" {
			bad(k, "unknown key %q (want \"accepted\")", k.Value)
			continue
		}
		if v.Kind != yaml.SequenceNode {
			if v.Tag != "!!null" {
				bad(v, "accepted: want a list")
			}
			continue
		}
		for _, item := range v.Content {
			if item.Kind != yaml.MappingNode {
				bad(item, "accepted: each entry is a mapping with subject, version or fingerprint, and reason")
				continue
			}
			ab := AcceptedBreak{Pos: fmt.Sprintf("%s:%d:%d", name, item.Line, item.Column)}
			for j := 0; j+1 < len(item.Content); j += 2 {
				kk, vv := item.Content[j], item.Content[j+1]
				switch kk.Value {
				case "subject":
					ab.Subject = vv.Value
				case "reason":
					ab.Reason = strings.TrimSpace(vv.Value)
				case "fingerprint":
					ab.Fingerprint = strings.ToLower(strings.TrimPrefix(strings.TrimPrefix(vv.Value, "0x"), "0X"))
					if _, err := strconv.ParseUint(ab.Fingerprint, 16, 64); err != nil || len(ab.Fingerprint) != 16 {
						bad(vv, "fingerprint %q: want 16 hex digits (as `outboxctl schema check` prints it)", vv.Value)
					}
				case "version":
					n, err := strconv.Atoi(vv.Value)
					if err != nil || n < 1 {
						bad(vv, "version %q: want a version number >= 1", vv.Value)
					}
					ab.Version = n
				default:
					bad(kk, "unknown key %q (want subject, version, fingerprint, reason)", kk.Value)
				}
			}
			if ab.Subject == "" {
				bad(item, "subject is required")
			}
			if ab.Reason == "" {
				bad(item, "reason is required: say why the break is intended")
			}
			if ab.Version == 0 && ab.Fingerprint == "" {
				bad(item, "give version or fingerprint")
			}
			out.Accepted = append(out.Accepted, ab)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// match returns the accepted break for an incompatible result, or nil.
func (a *AcceptedBreaks) match(subject, fingerprint string, version int) *AcceptedBreak {
	if a == nil {
		return nil
	}
	for i := range a.Accepted {
		ab := &a.Accepted[i]
		if ab.Subject != subject {
			continue
		}
		if (ab.Fingerprint != "" && ab.Fingerprint == fingerprint) || (ab.Version != 0 && ab.Version == version) {
			return ab
		}
	}
	return nil
}
