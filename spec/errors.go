package spec

import (
	"errors"
	"sort"
	"strings"
)

// ErrInvalidSpec is the sentinel every spec error unwraps to.
var ErrInvalidSpec = errors.New("invalid outbox spec")

// ErrSecretUnresolved is returned (wrapped) by Resolve when a ${env:…} or
// ${file:…} reference cannot be resolved.
var ErrSecretUnresolved = errors.New("secret reference not resolved")

// Error is one problem in a spec file, at a position.
type Error struct {
	Pos Pos
	Msg string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// Unwrap returns ErrInvalidSpec.
func (e *Error) Unwrap() error { return ErrInvalidSpec }

// ErrorList is every problem found while loading a spec, sorted by
// position. It unwraps to ErrInvalidSpec.
type ErrorList []*Error

func (l *ErrorList) add(p Pos, msg string) { *l = append(*l, &Error{Pos: p, Msg: msg}) }

// at reports whether l already has an error at p (a value of the wrong
// type, decoded as zero, is not reported a second time as out of range).
func (l ErrorList) at(p Pos) bool {
	for _, e := range l {
		if e.Pos == p {
			return true
		}
	}
	return false
}

func (l ErrorList) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Unwrap returns the individual errors.
func (l ErrorList) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}

func (l ErrorList) sort() {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i].Pos, l[j].Pos
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
}

func (l ErrorList) err() error {
	if len(l) == 0 {
		return nil
	}
	l.sort()
	return l
}
