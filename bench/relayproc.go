package bench

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/outboxctl/outboxctl/relay"
)

// ErrRelayProcess: the relay process (RelayConfig.Process) could not be
// started, or exited with an error.
var ErrRelayProcess = errors.New("bench: relay process")

// relayProcess is the relay run as a process of its own.
type relayProcess struct {
	cmd  *exec.Cmd
	done chan struct{} // closed once the process has exited
	err  error         // its Wait error, set before done is closed

	mu   sync.Mutex
	tail []string // its last output lines, for the error
	once sync.Once
	serr error
}

// relayTailLines is how many of its last output lines a failed relay
// process's error quotes.
const relayTailLines = 10

func startRelayProcess(rc *RelayConfig, f relay.Filter, logf func(string, ...any)) (*relayProcess, error) {
	cmd, err := rc.Process(f)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRelayProcess, err)
	}
	if logf == nil {
		logf = func(string, ...any) {}
	}
	rp := &relayProcess{cmd: cmd, done: make(chan struct{})}
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	orphanGuard(cmd)
	// Pdeathsig follows the thread that started the child: keep this
	// goroutine on it while starting (the thread outlives the unlock).
	runtime.LockOSThread()
	err = cmd.Start()
	runtime.UnlockOSThread()
	if err != nil {
		pw.Close()
		return nil, fmt.Errorf("%w: start %s: %w", ErrRelayProcess, cmd.Path, err)
	}
	lines := make(chan struct{})
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			l := sc.Text()
			logf("relay process: %s", l)
			rp.mu.Lock()
			rp.tail = append(rp.tail, l)
			if len(rp.tail) > relayTailLines {
				rp.tail = rp.tail[1:]
			}
			rp.mu.Unlock()
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	go func() {
		err := cmd.Wait()
		pw.Close()
		<-lines
		rp.err = err
		close(rp.done)
	}()
	return rp, nil
}

// exited is closed once the process has exited (nil rp: never).
func (rp *relayProcess) exited() <-chan struct{} {
	if rp == nil {
		return nil
	}
	return rp.done
}

// stop interrupts the process (as Ctrl-C or SIGTERM stop outboxctl relay),
// kills it after RelayStopTimeout, and returns its exit error with the end
// of its output, or nil when it exited 0.
func (rp *relayProcess) stop() error {
	rp.once.Do(func() {
		select {
		case <-rp.done:
		default:
			if err := rp.cmd.Process.Signal(os.Interrupt); err != nil {
				_ = rp.cmd.Process.Kill()
			}
			select {
			case <-rp.done:
			case <-time.After(RelayStopTimeout):
				_ = rp.cmd.Process.Kill()
				<-rp.done
				rp.serr = fmt.Errorf("%w: %s did not stop within %s of its interrupt: killed", ErrRelayProcess, rp.cmd.Path, RelayStopTimeout)
				return
			}
		}
		if rp.err != nil {
			rp.mu.Lock()
			tail := strings.Join(rp.tail, "\n")
			rp.mu.Unlock()
			rp.serr = fmt.Errorf("%w: %s: %w; its last lines:\n%s", ErrRelayProcess, strings.Join(rp.cmd.Args, " "), rp.err, tail)
		}
	})
	return rp.serr
}
