//go:build linux

package bench

import (
	"os/exec"
	"syscall"
)

// orphanGuard makes the kernel send the relay process SIGTERM when the bench
// dies without stopping it (killed, crashed): no relay is left polling the
// table.
func orphanGuard(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGTERM
}
