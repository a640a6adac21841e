// Package itest is the shared harness of the integration tests (build tag
// "integration"): it gives them the stack's settings and makes sure every
// service they need answers.
//
// A service that does not answer fails the test when CI is set (CI=true, as
// .ci/run runs) and skips it with a loud message otherwise, so that an
// integration test never passes silently without the stack.
package itest

import (
	"context"
	"github.com/go-sql-driver/mysql"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/outboxctl/outboxctl/internal/settings"
)

// Service names a component of the stack.
type Service string

const (
	Kafka    Service = "kafka"
	Connect  Service = "connect"
	Registry Service = "registry"
	Postgres Service = "postgres"
	MariaDB  Service = "mariadb"
	MySQL    Service = "mysql"
)

// Settings returns the stack settings from the OUTBOX_* environment.
func Settings() settings.Settings { return settings.FromEnv(os.Getenv) }

// InCI reports whether the tests run in CI, where a missing service is a failure.
func InCI() bool {
	v := strings.ToLower(os.Getenv("CI"))
	return v != "" && v != "false" && v != "0"
}

// Require checks that each service answers and returns the settings. In CI a
// service that does not answer fails the test; elsewhere it skips it.
func Require(t testing.TB, services ...Service) settings.Settings {
	t.Helper()
	s := Settings()
	for _, svc := range services {
		if err := probe(s, svc); err != nil {
			if svc == MySQL && os.Getenv("OUTBOX_MYSQL_REQUIRED") == "" {
				// MySQL 8 is optional on this kind of machine (see README).
				t.Skipf("MYSQL NOT RUN: %s does not answer: %v (set OUTBOX_MYSQL_REQUIRED=1 to make this fail)", svc, err)
			}
			if InCI() {
				t.Fatalf("integration: %s does not answer: %v (run `make stack-up`)", svc, err)
			}
			t.Skipf("INTEGRATION NOT RUN: %s does not answer: %v (run `make stack-up`)", svc, err)
		}
	}
	return s
}

func probe(s settings.Settings, svc Service) error {
	switch svc {
	case Kafka:
		return dial(strings.Split(s.BootstrapServers, ",")[0])
	case Connect:
		return httpGet(strings.TrimRight(s.ConnectURL, "/") + "/connector-plugins")
	case Registry:
		return httpGet(strings.TrimRight(s.SchemaRegistryURL, "/") + "/subjects")
	case Postgres:
		u, err := url.Parse(s.PostgresDSN)
		if err != nil {
			return err
		}
		return dial(u.Host)
	case MariaDB:
		return dialMySQL(s.MariaDBDSN)
	case MySQL:
		return dialMySQL(s.MySQLDSN)
	}
	return nil
}

// dialMySQL dials the server of a go-sql-driver DSN.
func dialMySQL(dsn string) error {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return err
	}
	return dial(cfg.Addr)
}

func dial(addr string) error {
	c, err := net.DialTimeout("tcp", addr, 3*time.Second)
	if err != nil {
		return err
	}
	return c.Close()
}

func httpGet(u string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode >= 300 {
		return &url.Error{Op: "GET", URL: u, Err: errStatus(resp.Status)}
	}
	return nil
}

type errStatus string

func (e errStatus) Error() string { return "HTTP " + string(e) }
