//go:build !linux

package mcpbridge

import "os/exec"

// endWithParent does nothing here: only Linux has a parent-death signal.
// A proxy killed outright leaves its server to notice its stdin's end.
func endWithParent(*exec.Cmd) {}
