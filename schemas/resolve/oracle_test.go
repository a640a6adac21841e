package resolve_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/internal/javaoracle"
	"github.com/outboxctl/outboxctl/schemas/resolve"
)

// javaDeviations are the cases where this package deliberately differs
// from Avro Java's decoder (see the package doc).
var javaDeviations = map[string]string{
	// Avro Java 1.12.2 checks a collection's claimed length against the
	// minimum size of the *reader's* element type, so an array of ints read
	// as doubles fails with "Collection claims 2 elements with at least 8
	// bytes each". That is a Java bug, not resolution semantics.
	"array items": "Avro Java 1.12.2 collection-size check uses the reader's element size",
	"array of records with added defaulted field": "Avro Java 1.12.2 collection-size check uses the reader's element size",
	"tree via arrays": "Avro Java 1.12.2 collection-size check uses the reader's element size",
	// JDK 17's Float.toString prints 1.09951163E12; JDK 19+ and this
	// package print the shortest digits, 1.0995116E12: the same float.
	"long to float": "Float.toString of JDK < 19 is not the shortest form",
}

// TestJavaOracle runs every table case with a datum (including those
// Compile rejects) through Avro Java's
// GenericDatumReader and JsonEncoder and compares. It needs javac and the
// Avro 1.12 jars with their Jackson and slf4j dependencies:
//
//	OUTBOX_AVRO_JAVA_CP='/path/to/jars/*' go test ./schemas/resolve -run JavaOracle -v
func TestJavaOracle(t *testing.T) {
	java := javaoracle.Compile(t, "testdata/oracle/Oracle.java", "Oracle")
	var cases []resolveCase
	for _, tc := range allCases() {
		// Compile errors with a datum run too: Java must fail on it.
		if !tc.compileErr || tc.datum != nil {
			cases = append(cases, tc)
		}
	}
	root := t.TempDir()
	for i, tc := range cases {
		dir := filepath.Join(root, strconv.Itoa(i))
		must(t, os.MkdirAll(dir, 0o755))
		must(t, os.WriteFile(filepath.Join(dir, "w.avsc"), []byte(tc.writer), 0o644))
		must(t, os.WriteFile(filepath.Join(dir, "r.avsc"), []byte(tc.reader), 0o644))
		must(t, os.WriteFile(filepath.Join(dir, "d.bin"), encode(t, tc.writer, tc.datum), 0o644))
	}
	out := java.Run(t, "", root, strconv.Itoa(len(cases)))
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != len(cases) {
		t.Fatalf("java printed %d lines for %d cases", len(lines), len(cases))
	}
	exact := 0
	for i, tc := range cases {
		javaOK, javaOut, _ := strings.Cut(lines[i], " ")
		res, err := resolve.Compile(mustParse(t, tc.writer), mustParse(t, tc.reader))
		var got []byte
		if err == nil {
			got, err = res.DecodeJSON(encode(t, tc.writer, tc.datum))
		}
		if why, ok := javaDeviations[tc.name]; ok {
			t.Logf("%s: deviation (%s): java %s, go %s %v", tc.name, why, lines[i], got, err)
			continue
		}
		switch {
		case javaOK == "ERR" && err == nil:
			t.Errorf("%s: java fails (%s), go reads %s", tc.name, javaOut, got)
		case javaOK == "OK" && err != nil:
			t.Errorf("%s: java reads %s, go fails: %v", tc.name, javaOut, err)
		case javaOK == "OK" && string(got) == javaOut:
			exact++
		case javaOK == "OK":
			var a, b any
			if json.Unmarshal(got, &a) != nil || json.Unmarshal([]byte(javaOut), &b) != nil || !reflect.DeepEqual(a, b) {
				t.Errorf("%s:\njava %s\n  go %s", tc.name, javaOut, got)
			} else {
				t.Logf("%s: same value, other spelling:\njava %s\n  go %s", tc.name, javaOut, got)
			}
		default:
			t.Logf("%s: both fail: java %s; go %v", tc.name, javaOut, err)
		}
	}
	t.Logf("%d of %d cases byte-identical to Java", exact, len(cases))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
