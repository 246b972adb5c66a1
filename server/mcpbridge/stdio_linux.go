package mcpbridge

import (
	"os/exec"
	"syscall"
)

// endWithParent has Linux send the server SIGTERM when this process
// dies. A proxy killed outright (SIGKILL, the OOM killer, a host's last
// resort after its grace) cannot end its server itself, and a server
// that goes on after its stdin ends (a timer running) was left running
// under init, one more at each host restart. Only the server itself is
// signalled: a server that is a launcher (npx) passes it on, or not.
func endWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGTERM
}
