package provisioning

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/outboxctl/outboxctl/internal/sqlident"
	"github.com/outboxctl/outboxctl/spec"
)

// ErrDeprovision: a deprovision step failed; the Removal says what was done
// and what not.
var ErrDeprovision = errors.New("deprovision")

// Kinds of the objects deprovision removes, in the order it removes them.
const (
	KindConnector   = "connector"
	KindSlot        = "slot"
	KindPublication = "publication"
	KindRole        = "role"
	KindTopic       = "topic"
	KindSubject     = "subject"
)

// Statuses of a deprovision item.
const (
	// StatusPresent: exists and would be removed (dry run).
	StatusPresent = "present"
	// StatusAbsent: does not exist; nothing to do (not an error).
	StatusAbsent = "absent"
	// StatusKept: exists and is deliberately kept (Note says why).
	StatusKept = "kept"
	// StatusRemoved: removed by this run.
	StatusRemoved = "removed"
	// StatusFailed: removing it failed (Error says why); the run stopped.
	StatusFailed = "failed"
	// StatusNotDone: not removed because an earlier step failed.
	StatusNotDone = "not done"
)

// Item is one object deprovision removes or would remove.
type Item struct {
	Outbox string `json:"outbox"`
	Kind   string `json:"kind"`
	Name   string `json:"name"`
	// Where: the server (database host/db, Connect URL, …).
	Where  string `json:"where,omitempty"`
	Status string `json:"status"`
	Note   string `json:"note,omitempty"`
	Error  string `json:"error,omitempty"`
}

// Removal is what Deprovision removed or, on a dry run, would remove (the
// JSON of outboxctl deprovision).
type Removal struct {
	DryRun bool   `json:"dryRun"`
	Items  []Item `json:"items"`
}

// Present counts the items that exist and are to be (or were) removed.
func (r Removal) Present() int {
	n := 0
	for _, it := range r.Items {
		if it.Status != StatusAbsent && it.Status != StatusKept {
			n++
		}
	}
	return n
}

// ConnectorRemover is the Kafka Connect side of deprovision.
type ConnectorRemover interface {
	// ConnectorExists reports whether the connector exists.
	ConnectorExists(ctx context.Context, name string) (bool, error)
	// RemoveConnector stops the connector, waits until STOPPED, deletes its
	// offsets (KIP-875: Connect needs it STOPPED, and after the connector
	// is deleted its offsets cannot be reset any more) and deletes it.
	RemoveConnector(ctx context.Context, name string) error
}

// TopicRemover is the Kafka side of deprovision.
type TopicRemover interface {
	// ExistingTopics returns which of names exist.
	ExistingTopics(ctx context.Context, names []string) (map[string]bool, error)
	DeleteTopic(ctx context.Context, name string) error
}

// SubjectRemover is the schema registry side of deprovision.
type SubjectRemover interface {
	// Subjects lists the registry's (not soft-deleted) subjects.
	Subjects(ctx context.Context) ([]string, error)
	// DeleteSubject soft- and then hard-deletes a subject.
	DeleteSubject(ctx context.Context, subject string) error
}

// DeprovisionRequest says what Deprovision removes.
type DeprovisionRequest struct {
	Targets []Target
	// Others are the spec's outboxes that are not deprovisioned: a role or
	// topic one of them uses too is kept.
	Others []Target
	// DSNs are the admin connections of the databases.
	DSNs     AdminDSNs
	Connect  ConnectorRemover
	Topics   TopicRemover
	Subjects SubjectRemover
	// ConnectWhere names the Connect cluster in the listing.
	ConnectWhere string
	DryRun       bool
	// SlotWait bounds the wait for the slot's walsender to end after the
	// connector is deleted (default 30s).
	SlotWait time.Duration
	// Progress gets a line per object removed (nil: none).
	Progress io.Writer
}

// InspectRemoval lists every object of the targets with its status
// (present, absent, kept), changing nothing.
func InspectRemoval(ctx context.Context, req DeprovisionRequest) (Removal, error) {
	rem := Removal{DryRun: true, Items: []Item{}}
	for _, t := range req.Targets {
		items, err := inspectTarget(ctx, req, t)
		rem.Items = append(rem.Items, items...)
		if err != nil {
			return rem, err
		}
	}
	return rem, nil
}

// Deprovision lists the targets' objects (InspectRemoval) and, unless
// DryRun, removes the present ones in order: connector (offsets first),
// replication slot, publication, roles, topics, subjects. It stops at the
// first failure: that item is StatusFailed, the later ones StatusNotDone,
// and the error wraps ErrDeprovision.
func Deprovision(ctx context.Context, req DeprovisionRequest) (Removal, error) {
	rem, err := InspectRemoval(ctx, req)
	if err != nil || req.DryRun {
		return rem, err
	}
	rem.DryRun = false
	for i := range rem.Items {
		it := &rem.Items[i]
		if it.Status != StatusPresent {
			continue
		}
		if err := removeItem(ctx, req, it); err != nil {
			it.Status, it.Error = StatusFailed, err.Error()
			for j := i + 1; j < len(rem.Items); j++ {
				if rem.Items[j].Status == StatusPresent {
					rem.Items[j].Status = StatusNotDone
				}
			}
			return rem, fmt.Errorf("%w: %s %s %s: %w", ErrDeprovision, it.Outbox, it.Kind, it.Name, err)
		}
		it.Status = StatusRemoved
		if req.Progress != nil {
			fmt.Fprintf(req.Progress, "outbox %s: removed %s %s\n", it.Outbox, it.Kind, it.Name)
		}
	}
	return rem, nil
}

func targetByOutbox(req DeprovisionRequest, name string) Target {
	for _, t := range req.Targets {
		if t.Outbox.Name == name {
			return t
		}
	}
	return Target{}
}

func dbWhere(o *spec.Outbox) string {
	c := o.Database.Connection
	return fmt.Sprintf("%s %s:%d/%s", o.Database.Kind, c.Host, c.Port, c.DBName)
}

// openDB opens an admin session connected to the outbox's database
// (OpenSession, then ConnectDB; Missing says whether the database exists).
func openDB(ctx context.Context, dsns AdminDSNs, o *spec.Outbox) (*Session, error) {
	s, err := OpenSession(ctx, dsns, o)
	if err != nil {
		return nil, err
	}
	if err := s.ConnectDB(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func inspectTarget(ctx context.Context, req DeprovisionRequest, t Target) ([]Item, error) {
	o := t.Outbox
	var items []Item
	add := func(kind, name, where string, present bool) *Item {
		st := StatusAbsent
		if present {
			st = StatusPresent
		}
		items = append(items, Item{Outbox: o.Name, Kind: kind, Name: name, Where: where, Status: st})
		return &items[len(items)-1]
	}
	if req.Connect != nil {
		ok, err := req.Connect.ConnectorExists(ctx, t.Connector.Name)
		if err != nil {
			return items, fmt.Errorf("outbox %s: connector %s: %w", o.Name, t.Connector.Name, err)
		}
		add(KindConnector, t.Connector.Name, req.ConnectWhere, ok)
	}
	if req.DSNs != (AdminDSNs{}) {
		dbItems, err := inspectDatabase(ctx, req, t)
		items = append(items, dbItems...)
		if err != nil {
			return items, err
		}
	}
	if req.Topics != nil || req.Subjects != nil {
		specs, _ := TopicSpecs([]Target{t}, TopicOptions{})
		var names []string
		for _, s := range specs {
			names = append(names, s.Name)
		}
		if req.Topics != nil {
			have, err := req.Topics.ExistingTopics(ctx, names)
			if err != nil {
				return items, fmt.Errorf("outbox %s: %w: %w", o.Name, ErrTopics, err)
			}
			shared := sharedTopics(req.Others)
			for _, n := range names {
				it := add(KindTopic, n, "", have[n])
				if o, ok := shared[n]; ok && have[n] {
					it.Status, it.Note = StatusKept, "also used by outbox "+o
				}
			}
		}
		if req.Subjects != nil {
			all, err := req.Subjects.Subjects(ctx)
			if err != nil {
				return items, fmt.Errorf("outbox %s: subjects: %w", o.Name, err)
			}
			shared := sharedTopics(req.Others)
			var own []string
			for _, n := range names {
				if _, ok := shared[n]; !ok {
					own = append(own, n)
				}
			}
			for _, s := range TopicSubjects(own, all) {
				add(KindSubject, s, "", true)
			}
		}
	}
	return items, nil
}

// TopicSubjects returns the subjects of subjects that belong to one of the
// topics: <topic>-key, <topic>-value (TopicNameStrategy) and
// <topic>-<record> (TopicRecordNameStrategy), sorted.
func TopicSubjects(topics, subjects []string) []string {
	var out []string
	for _, s := range subjects {
		for _, t := range topics {
			if strings.HasPrefix(s, t+"-") {
				out = append(out, s)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}

func inspectDatabase(ctx context.Context, req DeprovisionRequest, t Target) ([]Item, error) {
	o := t.Outbox
	where := dbWhere(o)
	var items []Item
	add := func(kind, name string, st string, note string) {
		items = append(items, Item{Outbox: o.Name, Kind: kind, Name: name, Where: where, Status: st, Note: note})
	}
	s, err := openDB(ctx, req.DSNs, o)
	if err != nil {
		return nil, fmt.Errorf("outbox %s: %w: %w", o.Name, ErrInspect, err)
	}
	defer s.Close()
	user := o.Database.Connection.User
	if o.Database.Kind != spec.Postgres {
		if user == "" {
			return nil, nil
		}
		var n int
		if err := s.Server.QueryRowContext(ctx, "SELECT COUNT(*) FROM mysql.user WHERE user = ?", user).Scan(&n); err != nil {
			return nil, fmt.Errorf("outbox %s: %w: %w", o.Name, ErrInspect, err)
		}
		var current string
		_ = s.Server.QueryRowContext(ctx, "SELECT SUBSTRING_INDEX(CURRENT_USER(), '@', 1)").Scan(&current)
		switch {
		case n == 0:
			add(KindRole, user, StatusAbsent, "")
		case sharedRoles(req.Others)[user] != "":
			add(KindRole, user, StatusKept, "also used by outbox "+sharedRoles(req.Others)[user])
		case user == current || user == "root":
			add(KindRole, user, StatusKept, "the admin connection's own account")
		default:
			add(KindRole, user, StatusPresent, "")
		}
		return items, nil
	}
	slot, pub := t.Config("slot.name"), t.Config("publication.name")
	if slot != "" {
		var n int
		if err := s.Server.QueryRowContext(ctx, "SELECT COUNT(*) FROM pg_replication_slots WHERE slot_name = $1", slot).Scan(&n); err != nil {
			return nil, fmt.Errorf("outbox %s: %w: %w", o.Name, ErrInspect, err)
		}
		add(KindSlot, slot, present(n > 0), "")
	}
	if pub != "" {
		n := 0
		if !s.Missing {
			if err := s.DB.QueryRowContext(ctx, "SELECT COUNT(*) FROM pg_publication WHERE pubname = $1", pub).Scan(&n); err != nil {
				return nil, fmt.Errorf("outbox %s: %w: %w", o.Name, ErrInspect, err)
			}
		}
		add(KindPublication, pub, present(n > 0), "")
	}
	roles := []string{user}
	if pub != "" {
		roles = append(roles, OwnerGroup(pub))
	}
	for _, r := range roles {
		if r == "" {
			continue
		}
		var super, isCurrent bool
		err := s.Server.QueryRowContext(ctx, "SELECT rolsuper, rolname = current_user FROM pg_roles WHERE rolname = $1", r).Scan(&super, &isCurrent)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			add(KindRole, r, StatusAbsent, "")
		case err != nil:
			return nil, fmt.Errorf("outbox %s: %w: %w", o.Name, ErrInspect, err)
		case super || isCurrent:
			add(KindRole, r, StatusKept, "a superuser or the admin connection's own role")
		case sharedRoles(req.Others)[r] != "":
			add(KindRole, r, StatusKept, "also used by outbox "+sharedRoles(req.Others)[r])
		default:
			add(KindRole, r, StatusPresent, "")
		}
	}
	return items, nil
}

// sharedTopics maps the topics of the other outboxes to one of them.
func sharedTopics(others []Target) map[string]string {
	out := map[string]string{}
	for _, t := range others {
		specs, _ := TopicSpecs([]Target{t}, TopicOptions{})
		for _, s := range specs {
			out[s.Name] = t.Outbox.Name
		}
	}
	return out
}

// sharedRoles maps the roles of the other outboxes (connection user, owner
// group) to one of them.
func sharedRoles(others []Target) map[string]string {
	out := map[string]string{}
	for _, t := range others {
		if u := t.Outbox.Database.Connection.User; u != "" {
			out[u] = t.Outbox.Name
		}
		if pub := t.Config("publication.name"); pub != "" && t.Outbox.Database.Kind == spec.Postgres {
			out[OwnerGroup(pub)] = t.Outbox.Name
		}
	}
	return out
}

func present(ok bool) string {
	if ok {
		return StatusPresent
	}
	return StatusAbsent
}

func removeItem(ctx context.Context, req DeprovisionRequest, it *Item) error {
	switch it.Kind {
	case KindConnector:
		return req.Connect.RemoveConnector(ctx, it.Name)
	case KindTopic:
		return req.Topics.DeleteTopic(ctx, it.Name)
	case KindSubject:
		return req.Subjects.DeleteSubject(ctx, it.Name)
	}
	t := targetByOutbox(req, it.Outbox)
	s, err := openDB(ctx, req.DSNs, t.Outbox)
	if err != nil {
		return err
	}
	defer s.Close()
	kind := t.Outbox.Database.Kind
	q := func(n string) string { return sqlident.Quote(kind, n) }
	switch it.Kind {
	case KindSlot:
		return dropSlot(ctx, s.Server, it.Name, req.SlotWait)
	case KindPublication:
		_, err := s.DB.ExecContext(ctx, "DROP PUBLICATION IF EXISTS "+q(it.Name))
		return err
	case KindRole:
		if kind != spec.Postgres {
			// Every account of the user (provision --user-host chose the host).
			rows, err := s.Server.QueryContext(ctx, "SELECT host FROM mysql.user WHERE user = ?", it.Name)
			if err != nil {
				return err
			}
			var hosts []string
			for rows.Next() {
				var h string
				if err := rows.Scan(&h); err != nil {
					rows.Close()
					return err
				}
				hosts = append(hosts, h)
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
			for _, h := range hosts {
				if _, err := s.Server.ExecContext(ctx, "DROP USER IF EXISTS "+mysqlAccount(it.Name, h)); err != nil {
					return err
				}
			}
			return nil
		}
		// Objects the role owns in the outbox database (the outbox table
		// of an owner group) go back to the admin role, its privileges
		// there are revoked; then the role can go.
		for _, stmt := range []string{
			"REASSIGN OWNED BY " + q(it.Name) + " TO CURRENT_USER",
			"DROP OWNED BY " + q(it.Name),
			"DROP ROLE IF EXISTS " + q(it.Name),
		} {
			db := s.DB
			if strings.HasPrefix(stmt, "DROP ROLE") {
				db = s.Server
			}
			if _, err := db.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("%s: %w", stmt, err)
			}
		}
		return nil
	}
	return fmt.Errorf("unknown kind %q", it.Kind)
}

// dropSlot drops a replication slot once no walsender holds it: the
// connector's walsender may outlive the connector's delete for a moment.
func dropSlot(ctx context.Context, db *sql.DB, slot string, wait time.Duration) error {
	if wait <= 0 {
		wait = 30 * time.Second
	}
	deadline := time.Now().Add(wait)
	for {
		var active bool
		err := db.QueryRowContext(ctx, "SELECT active FROM pg_replication_slots WHERE slot_name = $1", slot).Scan(&active)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if !active {
			_, err := db.ExecContext(ctx, "SELECT pg_drop_replication_slot($1)", slot)
			if err == nil {
				return nil
			}
			if time.Now().After(deadline) {
				return err
			}
		} else if time.Now().After(deadline) {
			return fmt.Errorf("replication slot %s is still active after %s (another consumer holds it)", slot, wait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}
