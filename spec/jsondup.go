package spec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// ErrDuplicateKey: a JSON object gives the same key twice. encoding/json
// keeps the last one silently, so a file could show one value to a reader
// (or a review) and deploy another.
var ErrDuplicateKey = errors.New("duplicate key")

// DuplicateKeyError names the file position (line:col, 1-based) of the
// second occurrence of Key and the line of the first. It unwraps to
// ErrDuplicateKey.
type DuplicateKeyError struct {
	File             string
	Line, Col, First int
	Key              string
}

func (e *DuplicateKeyError) Error() string {
	return fmt.Sprintf("%s:%d:%d: duplicate key %s (first at line %d)", e.File, e.Line, e.Col, strconv.Quote(e.Key), e.First)
}

// Unwrap returns ErrDuplicateKey.
func (e *DuplicateKeyError) Unwrap() error { return ErrDuplicateKey }

// CheckJSONDuplicateKeys returns a *DuplicateKeyError for the first object
// of the JSON text data that gives a key twice, and nil otherwise (also
// for text that is not valid JSON: the caller's decoder reports that).
// name is the file's name in the error.
func CheckJSONDuplicateKeys(name string, data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	type object struct {
		keys      map[string]int64 // key -> offset of its first occurrence
		expectKey bool
	}
	var stack []*object
	var isObj []bool // per open container: object or array
	for {
		off := dec.InputOffset()
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return nil
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{':
				if n := len(stack); n > 0 && isObj[len(isObj)-1] {
					stack[n-1].expectKey = true
				}
				stack = append(stack, &object{keys: map[string]int64{}, expectKey: true})
				isObj = append(isObj, true)
			case '[':
				if n := len(stack); n > 0 && isObj[len(isObj)-1] {
					stack[n-1].expectKey = true
				}
				stack = append(stack, nil)
				isObj = append(isObj, false)
			case '}', ']':
				stack = stack[:len(stack)-1]
				isObj = isObj[:len(isObj)-1]
				if n := len(stack); n > 0 && isObj[n-1] {
					stack[n-1].expectKey = true
				}
			}
			continue
		}
		n := len(stack)
		if n == 0 || !isObj[n-1] {
			continue
		}
		o := stack[n-1]
		if !o.expectKey {
			o.expectKey = true
			continue
		}
		o.expectKey = false
		key, _ := tok.(string)
		// off is the end of the previous token: the key starts at the
		// first quote after it.
		start := off
		if i := bytes.IndexByte(data[off:], '"'); i >= 0 {
			start = off + int64(i)
		}
		if first, dup := o.keys[key]; dup {
			line, col := lineCol(data, start)
			firstLine, _ := lineCol(data, first)
			return &DuplicateKeyError{File: name, Line: line, Col: col, First: firstLine, Key: key}
		}
		o.keys[key] = start
	}
}

// lineCol is the 1-based line and column of byte offset off of data.
func lineCol(data []byte, off int64) (int, int) {
	line, col := 1, 1
	for i := int64(0); i < off && i < int64(len(data)); i++ {
		if data[i] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}
