package cmd

import (
	"errors"
	"fmt"
	"io"

	"github.com/outboxctl/outboxctl/schemas/avro"
	"github.com/outboxctl/outboxctl/spec"
)

// inputKind is a kind of file input of the CLI with its size bound.
type inputKind struct {
	what string
	max  int64
}

// The file inputs other than specs, connectors files and secrets (which
// have their own bounds: spec.MaxFileSize, spec.MaxSecretFileSize).
var (
	inputSchema          = inputKind{"schema file", avro.MaxFileSize}
	inputDatum           = inputKind{"datum file", 64 << 20}
	inputSampleRow       = inputKind{"sample row", 4 << 20}
	inputConnectorConfig = inputKind{"connector config", 4 << 20}
	inputProperties      = inputKind{"properties file", 1 << 20}
	inputOffsets         = inputKind{"offsets file", 16 << 20}
)

// readInput reads the file input path of kind k ("-" is stdin) through
// one bounded reader: a regular file (a device such as /dev/zero, a FIFO
// or a directory is refused before it is opened) of at most k.max bytes;
// stdin is read up to k.max bytes. Errors name the kind and the file and
// wrap spec.ErrNotRegular, spec.ErrTooLarge or fs.ErrNotExist; callers
// make them usage errors (exit 2).
func readInput(stdin io.Reader, path string, k inputKind) ([]byte, error) {
	if path == "-" {
		data, err := spec.ReadAllLimit(stdin, k.max)
		if err != nil {
			return nil, fmt.Errorf("%s <stdin>: %w", k.what, err)
		}
		return data, nil
	}
	data, err := spec.ReadFileLimit(path, k.max)
	if err != nil {
		return nil, &inputError{kind: k.what, err: err}
	}
	return data, nil
}

// inputError is an error of readInput on a file; it keeps the
// *fs.PathError of a missing or unreadable file reachable.
type inputError struct {
	kind string
	err  error
}

func (e *inputError) Error() string { return e.kind + ": " + e.err.Error() }
func (e *inputError) Unwrap() error { return e.err }

// isUnreadable reports an error of readInput: the file is missing, not a
// regular file, too large or unreadable (bad input, exit 2), not bad
// content.
func isUnreadable(err error) bool {
	var ie *inputError
	return errors.As(err, &ie) || errors.Is(err, spec.ErrTooLarge) || errors.Is(err, spec.ErrNotRegular)
}
