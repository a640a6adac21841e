package relay

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Listen LISTENs on a PostgreSQL channel and returns a channel that
// receives a value (coalesced) for every notification, for Options.Wake. The
// notification only wakes the relay early: polling stays the safety net, so
// a notification lost while the listener reconnects delays rows by at most
// one poll interval. The listener runs until ctx ends; connection errors are
// logged and retried. The outbox table's trigger (provisioning, with
// `relay: {notify: CHANNEL}` in the spec) sends the notifications.
func Listen(ctx context.Context, dsn, channel string, logf func(string, ...any)) (<-chan struct{}, error) {
	listen := "LISTEN " + pgx.Identifier{channel}.Sanitize()
	connect := func() (*pgx.Conn, error) {
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			return nil, fmt.Errorf("%w: listen: %v", ErrDatabase, err)
		}
		if _, err := conn.Exec(ctx, listen); err != nil {
			conn.Close(context.Background())
			return nil, fmt.Errorf("%w: %s: %v", ErrDatabase, listen, err)
		}
		return conn, nil
	}
	conn, err := connect()
	if err != nil {
		return nil, err
	}
	wake := make(chan struct{}, 1)
	go func() {
		for ctx.Err() == nil {
			if conn == nil {
				time.Sleep(time.Second)
				if conn, err = connect(); err != nil {
					continue
				}
			}
			if _, err := conn.WaitForNotification(ctx); err != nil {
				conn.Close(context.Background())
				conn = nil
				if ctx.Err() == nil && logf != nil {
					logf("relay: listen %s: %v (reconnecting; polling continues)", channel, err)
				}
				continue
			}
			select {
			case wake <- struct{}{}:
			default:
			}
		}
		if conn != nil {
			conn.Close(context.Background())
		}
	}()
	return wake, nil
}
