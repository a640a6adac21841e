package cmd

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSchemaDecodeZeroSizeItems: a block of 1.5 M nulls (4 bytes on the
// wire) decodes, as Avro Java 1.12 reads it (measured: Java reads 20 M such
// items and bounds them by memory, collectionItems.maxAllocation); a block
// claiming more zero-size items than the memory bound (maxDecodeItems) is
// refused without allocating.
func TestSchemaDecodeZeroSizeItems(t *testing.T) {
	dir := t.TempDir()
	schema := filepath.Join(dir, "nulls.avsc")
	if err := os.WriteFile(schema, []byte(`{"type": "array", "items": "null"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(count int64) (int, string, string) {
		datum := binary.AppendVarint(nil, count)
		datum = append(datum, 0)
		in := filepath.Join(dir, "datum.bin")
		if err := os.WriteFile(in, datum, 0o644); err != nil {
			t.Fatal(err)
		}
		var out, errOut bytes.Buffer
		env := &Env{IO: IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, Getenv: func(string) string { return "" }}
		code := Run(context.Background(), env, []string{"schema", "decode", "--writer", schema, "--reader", schema, in})
		return code, out.String(), errOut.String()
	}
	code, out, errOut := run(1_500_000)
	if code != 0 || strings.Count(out, "null") != 1_500_000 {
		t.Fatalf("1.5 M nulls: exit %d, %d nulls, stderr %s", code, strings.Count(out, "null"), errOut)
	}
	code, _, errOut = run(maxDecodeItems + 1)
	if code != ExitError || !strings.Contains(errOut, "MaxBlockCount") {
		t.Fatalf("%d nulls: exit %d, stderr %s; want exit 1 naming the bound", maxDecodeItems+1, code, errOut)
	}
}
