// Package javaoracle runs small Java programs against the real Avro Java
// jars, for the tests that compare this module's Avro code with Avro Java
// (schemas/compat's parser and checker oracle, schemas/resolve's decoder
// oracle).
//
// The classpath comes from OUTBOX_AVRO_JAVA_CP, which `make test` sets to
// the Avro 1.12 jars the native stack fetches (.stack/avro-java). Without
// it an oracle test skips, except in CI (CI set), where it fails: CI must
// compare with Java.
package javaoracle

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// EnvClasspath names the variable holding the Avro Java classpath.
const EnvClasspath = "OUTBOX_AVRO_JAVA_CP"

// Program is a compiled Java oracle.
type Program struct {
	classpath string
	main      string
}

// Compile compiles the Java source file src (its class main) with the
// Avro classpath, or skips t (fails it in CI) when there is none.
func Compile(t testing.TB, src, main string) *Program {
	t.Helper()
	cp := os.Getenv(EnvClasspath)
	if cp == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not set: make test sets it to the stack's Avro Java jars", EnvClasspath)
		}
		t.Skipf("set %s to the Avro Java 1.12 classpath to compare with Java", EnvClasspath)
	}
	classes := t.TempDir()
	if out, err := exec.Command("javac", "-cp", cp, "-d", classes, src).CombinedOutput(); err != nil {
		t.Fatalf("javac %s: %v\n%s", src, err, out)
	}
	return &Program{classpath: cp + string(os.PathListSeparator) + classes, main: main}
}

// Run runs the program in dir (the current one when empty) with args and
// returns its standard output, failing t with the standard error when it
// exits non-zero.
func (p *Program) Run(t testing.TB, dir string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("java", append([]string{"-cp", p.classpath, p.main}, args...)...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("java %s: %v\n%.2000s", p.main, err, stderr.String())
	}
	return out
}
