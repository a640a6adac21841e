package outbox

import (
	"context"
	"database/sql"
	"errors"

	"github.com/jackc/pgx/v5/pgconn"
)

// PgxExecer is what the writer needs from pgx: pgx.Tx, *pgx.Conn,
// *pgxpool.Pool, *pgxpool.Conn and *pgxpool.Tx all satisfy it.
type PgxExecer interface {
	Exec(ctx context.Context, sql string, arguments ...any) (pgconn.CommandTag, error)
}

// Pgx adapts a pgx transaction (or any PgxExecer) to Execer, so that
// Writer.Write and Writer.WriteAll take it (typed events too: Event.Value):
//
//	tx, _ := pool.Begin(ctx)
//	id, err := w.Write(ctx, outbox.Pgx(tx), e)
//
// Pass the pgx.Tx that writes the business rows, as with *sql.Tx. The
// result's RowsAffected is the command tag's; LastInsertId is an error, as
// with the pgx stdlib driver.
func Pgx(ex PgxExecer) Execer { return pgxExecer{ex} }

type pgxExecer struct{ ex PgxExecer }

func (p pgxExecer) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	tag, err := p.ex.Exec(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return pgxResult(tag.RowsAffected()), nil
}

type pgxResult int64

func (r pgxResult) LastInsertId() (int64, error) {
	return 0, errors.New("outbox: LastInsertId is not supported by PostgreSQL")
}
func (r pgxResult) RowsAffected() (int64, error) { return int64(r), nil }
