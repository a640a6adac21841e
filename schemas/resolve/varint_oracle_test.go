package resolve_test

import (
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/internal/javaoracle"
	"github.com/outboxctl/outboxctl/schemas/avro"
	"github.com/outboxctl/outboxctl/schemas/resolve"
)

// varintCases are raw datums with over-long, overflowing and boundary
// varints. want is Avro Java 1.12.2's reading (GenericDatumReader +
// JsonEncoder; "ERR" when it throws InvalidNumberEncodingException).
var varintCases = []struct {
	name, schema, data, want string
}{
	{"max valid long (10 bytes)", `"long"`, "feffffffffffffffff01", "9223372036854775807"},
	{"min long (10 bytes)", `"long"`, "ffffffffffffffffff01", "-9223372036854775808"},
	{"10-byte long with overflowing high bits", `"long"`, "ffffffffffffffffff7f", "-9223372036854775808"},
	{"10-byte long, 10th byte 02", `"long"`, "ffffffffffffffffff02", "-4611686018427387904"},
	{"11-byte long", `"long"`, "ffffffffffffffffff8001", "ERR"},
	{"11-byte long zero", `"long"`, "8080808080808080808000", "ERR"},
	{"max int (5 bytes)", `"int"`, "feffffff0f", "2147483647"},
	{"min int (5 bytes)", `"int"`, "ffffffff0f", "-2147483648"},
	{"5-byte int with overflowing high bits", `"int"`, "ffffffff7f", "-2147483648"},
	{"5-byte int, 5th byte 10", `"int"`, "ffffffff10", "-134217728"},
	{"6-byte int", `"int"`, "ffffffffff01", "ERR"},
	{"6-byte int zero", `"int"`, "808080808000", "ERR"},
	{"over-long int zero (5 bytes)", `"int"`, "8080808000", "0"},
	{"union index of 6 bytes", `["null","int"]`, "828080808000", "ERR"},
	{"enum index of 5 bytes", `{"type":"enum","name":"E","symbols":["A","B"]}`, "8280808000", `"B"`},
	{"string length of 6 bytes", `"string"`, "82808080800061", `"a"`},
	{"array count of 11 bytes", `{"type":"array","items":"int"}`, "8280808080808080808000", "ERR"},
	{"sized array block with over-long items", `{"type":"array","items":"long"}`, "030682000200", "[1,1]"},
	{"boolean byte 2", `"boolean"`, "02", "false"},
}

// TestVarintsLikeJava checks the resolver on the varint cases: the values
// Java reads, and an ErrDecode error wrapping avro.ErrInvalidInt or
// ErrInvalidLong where Java throws.
func TestVarintsLikeJava(t *testing.T) {
	t.Parallel()
	for _, tc := range varintCases {
		t.Run(tc.name, func(t *testing.T) {
			s := mustParse(t, tc.schema)
			r, err := resolve.Compile(s, s)
			if err != nil {
				t.Fatal(err)
			}
			data, _ := hex.DecodeString(tc.data)
			got, err := r.DecodeJSON(data)
			if tc.want == "ERR" {
				if !errors.Is(err, resolve.ErrDecode) || !(errors.Is(err, avro.ErrInvalidInt) || errors.Is(err, avro.ErrInvalidLong)) {
					t.Fatalf("DecodeJSON(%s) = %s, %v; want an invalid varint error", tc.data, got, err)
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Errorf("DecodeJSON(%s) = %s, %v; want %s", tc.data, got, err, tc.want)
			}
			// Decode (goavro native values) reads the same datum too.
			if _, err := r.Decode(data); err != nil {
				t.Errorf("Decode(%s): %v", tc.data, err)
			}
		})
	}
}

// TestJavaOracleVarints runs the varint cases through Avro Java (the
// Oracle program of TestJavaOracle) and checks that want is what Java reads.
func TestJavaOracleVarints(t *testing.T) {
	java := javaoracle.Compile(t, "testdata/oracle/Oracle.java", "Oracle")
	root := t.TempDir()
	for i, tc := range varintCases {
		dir := filepath.Join(root, strconv.Itoa(i))
		data, err := hex.DecodeString(tc.data)
		must(t, err)
		must(t, os.MkdirAll(dir, 0o755))
		must(t, os.WriteFile(filepath.Join(dir, "w.avsc"), []byte(tc.schema), 0o644))
		must(t, os.WriteFile(filepath.Join(dir, "r.avsc"), []byte(tc.schema), 0o644))
		must(t, os.WriteFile(filepath.Join(dir, "d.bin"), data, 0o644))
	}
	out := java.Run(t, "", root, strconv.Itoa(len(varintCases)))
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != len(varintCases) {
		t.Fatalf("java printed %d lines for %d cases", len(lines), len(varintCases))
	}
	for i, tc := range varintCases {
		status, value, _ := strings.Cut(lines[i], " ")
		switch {
		case tc.want == "ERR" && (status != "ERR" || !strings.Contains(value, "InvalidNumberEncodingException")):
			t.Errorf("%s: java %s, want InvalidNumberEncodingException", tc.name, lines[i])
		case tc.want != "ERR" && (status != "OK" || value != tc.want):
			t.Errorf("%s: java %s, want OK %s", tc.name, lines[i], tc.want)
		}
	}
}
