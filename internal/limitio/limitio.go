// Package limitio reads files and streams with a size bound, so that a
// reference to /dev/zero, a FIFO or a server that streams without end
// cannot make outboxctl read forever or grow without bound. It is a leaf
// (standard library only): spec re-exports it (spec.ReadFileLimit,
// spec.ReadAllLimit and their errors), and the Kafka Connect and Schema
// Registry clients use it without importing spec.
package limitio

import (
	"errors"
	"fmt"
	"io"
	"os"
)

var (
	// ErrTooLarge: the data exceeds the bound.
	ErrTooLarge = errors.New("too large")
	// ErrNotRegular: the path is not a regular file (a device, FIFO,
	// socket or directory).
	ErrNotRegular = errors.New("not a regular file")
)

// ReadAll reads r up to max bytes; more is ErrTooLarge.
func ReadAll(r io.Reader, max int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("more than %d bytes: %w", max, ErrTooLarge)
	}
	return data, nil
}

// ReadFile reads the regular file path, of at most max bytes. A special
// file is refused before it is opened (so a FIFO does not block), with an
// error wrapping ErrNotRegular that says what it is; a larger file is
// ErrTooLarge. Errors name path; a missing file keeps fs.ErrNotExist.
func ReadFile(path string, max int64) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := checkRegularFile(path, fi, max); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := checkRegularFile(path, fi, max); err != nil {
		return nil, err
	}
	data, err := ReadAll(f, max)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return data, nil
}

func checkRegularFile(path string, fi os.FileInfo, max int64) error {
	if !fi.Mode().IsRegular() {
		kind := "a special file"
		switch m := fi.Mode(); {
		case m.IsDir():
			kind = "a directory"
		case m&os.ModeDevice != 0:
			kind = "a device"
		case m&os.ModeNamedPipe != 0:
			kind = "a named pipe"
		case m&os.ModeSocket != 0:
			kind = "a socket"
		}
		return fmt.Errorf("%s is %w but %s", path, ErrNotRegular, kind)
	}
	if fi.Size() > max {
		return fmt.Errorf("%s: %d bytes, more than %d bytes: %w", path, fi.Size(), max, ErrTooLarge)
	}
	return nil
}
