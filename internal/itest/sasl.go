package itest

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// SASLStack is the broker's SASL_SSL listener of the native stack
// (devstack/stack.sh writes it to etc/kafka-sasl/listener.env): SCRAM-SHA-256,
// SCRAM-SHA-512 and PLAIN over TLS with the stack's own CA.
type SASLStack struct {
	BootstrapServers string
	Username         string
	Password         string
	CAFile           string
	Mechanisms       []string
}

// RequireSASL returns the SASL_SSL listener of the stack in
// $OUTBOX_SASL_STACK_DIR, else $OUTBOX_STACK_DIR, else the repository's
// .stack, once it answers. A missing listener fails the test under CI and
// skips it otherwise.
func RequireSASL(t testing.TB) SASLStack {
	t.Helper()
	dir := os.Getenv("OUTBOX_SASL_STACK_DIR")
	if dir == "" {
		dir = os.Getenv("OUTBOX_STACK_DIR")
	}
	if dir == "" {
		dir = repoStack()
	}
	path := filepath.Join(dir, "etc", "kafka-sasl", "listener.env")
	f, err := os.Open(path)
	if err != nil {
		missing(t, "the SASL_SSL listener's description: "+err.Error()+" (run `make stack-up`; set OUTBOX_SASL_STACK_DIR for another instance)")
	}
	defer f.Close()
	var s SASLStack
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), "=")
		switch k {
		case "bootstrap":
			s.BootstrapServers = v
		case "username":
			s.Username = v
		case "password":
			s.Password = v
		case "ca":
			s.CAFile = v
		case "mechanisms":
			s.Mechanisms = strings.Fields(v)
		}
	}
	if s.BootstrapServers == "" || s.Password == "" || s.CAFile == "" {
		t.Fatalf("integration: %s is incomplete", path)
	}
	if err := dial(s.BootstrapServers); err != nil {
		missing(t, "the SASL_SSL listener "+s.BootstrapServers+" does not answer: "+err.Error()+" (restart the stack's Kafka with the current devstack/stack.sh)")
	}
	return s
}

// repoStack is <repository>/.stack: the first parent of the working
// directory with a go.mod.
func repoStack() string {
	dir, err := os.Getwd()
	if err != nil {
		return ".stack"
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(d, ".stack")
		}
		if filepath.Dir(d) == d {
			return ".stack"
		}
	}
}

// UntrustedCA writes a fresh self-signed CA certificate (PEM) that signed
// nothing the stack uses, and returns its path: a client that trusts only
// it cannot verify the broker.
func UntrustedCA(t testing.TB) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: "untrusted test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "untrusted-ca.pem")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
