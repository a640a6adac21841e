package eventrouter

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"testing"
)

// pgIntervalInCase is one line of testdata/pginterval_in.jsonl: an input
// inserted into a column of type T on PostgreSQL 15.18 (the stack's
// version, IntervalStyle postgres) and what the server stored, as
// INSERT … RETURNING v::text printed it ("ERROR": the server refused the
// input, Err its message).
type pgIntervalInCase struct {
	T   string `json:"t"`
	In  string `json:"in"`
	PG  string `json:"pg"`
	Err string `json:"err"`
}

// TestPgIntervalInput checks the port of interval_in against PostgreSQL
// 15's own reading of every input form: ISO 8601 with designators and in
// the alternative format, SQL-standard year-month and day-time, verbose
// units with fractions, abbreviations and "ago", bare numbers, h:mm and
// mm:ss.f, overflows, and malformed text, each under 19 column types
// (interval, interval(p), and every field range). The model's stored
// value must be the one the server printed, part by part (months, days,
// the time), and an input the server refused must be refused.
// OUTBOX_PGINTERVAL_CASES names another file of the same form (a larger
// generated corpus).
func TestPgIntervalInput(t *testing.T) {
	path := "testdata/pginterval_in.jsonl"
	if p := os.Getenv("OUTBOX_PGINTERVAL_CASES"); p != "" {
		path = p
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var n, refused, notModelled int
	for sc.Scan() {
		var tc pgIntervalInCase
		if err := json.Unmarshal(sc.Bytes(), &tc); err != nil {
			t.Fatal(err)
		}
		n++
		it, ok := parsePgIntervalType(tc.T)
		if !ok {
			t.Fatalf("%s: not an interval type", tc.T)
		}
		got, err := parsePgInterval(tc.In, it)
		if tc.PG == "ERROR" {
			refused++
			if err == nil {
				t.Errorf("%s %q: %+v; the server refuses it: %s", tc.T, tc.In, got, tc.Err)
			}
			continue
		}
		if errors.Is(err, ErrUnsupported) {
			notModelled++
			continue
		}
		want, werr := parsePgInterval(tc.PG, pgIntervalType{prec: -1})
		if err != nil || werr != nil || got != want {
			t.Errorf("%s %q: %+v, %v; the server stores %q: %+v, %v", tc.T, tc.In, got, err, tc.PG, want, werr)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no cases")
	}
	t.Logf("%d cases, %d refused by the server, %d not modelled", n, refused, notModelled)
}

// FuzzPgIntervalIn: the port never panics, and what it reads from any text
// it accepts reads back the same from the relay's form of the stored
// value ("<months> mons <days> days <µs> microseconds").
func FuzzPgIntervalIn(f *testing.F) {
	for _, s := range []string{"P1Y2M3DT4H5M6.5S", "P0001-02-03T04:05:06", "-1-2 +3 -4:05:06", "@ 1.5 days ago", "1:30.25", "1 millennium", "PT", "."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, typ := range []string{"interval", "interval minute to second", "interval year"} {
			it, _ := parsePgIntervalType(typ)
			m, d, us, e := pgIntervalIn(s, it)
			if e != pgDtOK {
				continue
			}
			back := fmt.Sprintf("%d mons %d days %d microseconds", m, d, us)
			m2, d2, us2, e2 := pgIntervalIn(back, it)
			if e2 != pgDtOK || m2 != m || d2 != d || us2 != us {
				t.Errorf("%s %q: %d %d %d; %q reads %d %d %d (%d)", typ, s, m, d, us, back, m2, d2, us2, e2)
			}
		}
	})
}
