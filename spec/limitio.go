package spec

import (
	"io"

	"github.com/outboxctl/outboxctl/internal/limitio"
)

// The bounded readers (package internal/limitio, a leaf): a reference to
// /dev/zero, a FIFO or a server that streams without end cannot make
// outboxctl read forever or grow without bound.

var (
	// ErrTooLarge: the data exceeds the bound.
	ErrTooLarge = limitio.ErrTooLarge
	// ErrNotRegular: the path is not a regular file (a device, FIFO,
	// socket or directory).
	ErrNotRegular = limitio.ErrNotRegular
)

// ReadAllLimit reads r up to max bytes; more is ErrTooLarge.
func ReadAllLimit(r io.Reader, max int64) ([]byte, error) { return limitio.ReadAll(r, max) }

// ReadFileLimit reads the regular file path, of at most max bytes. A special
// file is refused before it is opened (so a FIFO does not block), with an
// error wrapping ErrNotRegular that says what it is; a larger file is
// ErrTooLarge. Errors name path; a missing file keeps fs.ErrNotExist.
func ReadFileLimit(path string, max int64) ([]byte, error) { return limitio.ReadFile(path, max) }
