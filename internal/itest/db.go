package itest

import (
	"context"
	"database/sql"
	"github.com/outboxctl/outboxctl/internal/settings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	_ "github.com/go-sql-driver/mysql" // MariaDB / MySQL driver
	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL driver "pgx"
)

// PostgresDatabase creates a fresh database named name on the stack's PostgreSQL,
// returns a connection to it and drops it (with any replication slots and
// publications in it) on cleanup.
func PostgresDatabase(t testing.TB, dsn, name string) *sql.DB {
	t.Helper()
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatalf("postgres: %v", err)
	}
	t.Cleanup(func() { admin.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database %s: %v", name, err)
	}
	db, err := sql.Open("pgx", settings.PostgresDSNWithDatabase(dsn, name))
	if err != nil {
		t.Fatalf("postgres: %v", err)
	}
	t.Cleanup(func() {
		db.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		// The connector may still hold the slot for a moment after deletion.
		for i := 0; i < 40; i++ {
			_, err = admin.ExecContext(ctx, `SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE database = $1 AND NOT active`, name)
			var n int
			_ = admin.QueryRowContext(ctx, `SELECT count(*) FROM pg_replication_slots WHERE database = $1`, name).Scan(&n)
			if n == 0 {
				break
			}
			time.Sleep(500 * time.Millisecond)
		}
		if _, err := admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	})
	return db
}

// MariaDBDatabase creates a fresh database named name on a MariaDB/MySQL server,
// returns a connection to it and drops it on cleanup.
func MariaDBDatabase(t testing.TB, dsn, name string) *sql.DB {
	t.Helper()
	admin, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatalf("mariadb: %v", err)
	}
	t.Cleanup(func() { admin.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database %s: %v", name, err)
	}
	dbDSN, err := settings.MySQLDSNWithDatabase(dsn, name)
	if err != nil {
		t.Fatalf("mariadb: %v", err)
	}
	db, err := sql.Open("mysql", dbDSN)
	if err != nil {
		t.Fatalf("mariadb: %v", err)
	}
	t.Cleanup(func() {
		db.Close()
		if _, err := admin.Exec("DROP DATABASE IF EXISTS " + name); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	})
	return db
}

// PostgresPool opens a pgx pool on database name of the stack's PostgreSQL
// (made with PostgresDatabase) and closes it on cleanup, before the
// database is dropped.
func PostgresPool(t testing.TB, dsn, name string) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), settings.PostgresDSNWithDatabase(dsn, name))
	if err != nil {
		t.Fatalf("pgx pool: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool
}
