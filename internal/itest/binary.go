package itest

import (
	"os/exec"
	"testing"
)

// RequireBinary returns the path of the program name (promtool,
// prometheus). When it is not on PATH the test fails in CI and is skipped
// elsewhere, naming the Debian package that brings it (devstack/stack.sh
// installs it).
func RequireBinary(t testing.TB, name, debianPackage string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	if InCI() {
		t.Fatalf("%s is not on PATH: install the Debian package %s (devstack/stack.sh up does)", name, debianPackage)
	}
	t.Skipf("NOT RUN: %s is not on PATH: install the Debian package %s (devstack/stack.sh up does)", name, debianPackage)
	return ""
}
