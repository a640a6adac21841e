package compat

import (
	"reflect"
	"testing"
)

// TestMultipleIncompatibilities is one reader/writer pair with an
// incompatibility of every kind, nested, so that the order and the
// locations of all of them are checked together (the scenario of Avro's
// own multi-error test).
func TestMultipleIncompatibilities(t *testing.T) {
	reader := `{"type":"record","name":"base","fields":[
	  {"name":"check_enum_symbols_field","type":{"type":"enum","name":"check_enum_symbols_type","symbols":["A","C"]}},
	  {"name":"check_enum_name_field","type":{"type":"enum","name":"check_enum_name_type","symbols":["A","B","C","D"]}},
	  {"name":"type_mismatch_field","type":"string"},
	  {"name":"sub_record","type":{"type":"record","name":"sub_record_type","fields":[
	    {"name":"identical_1_field","type":"long","default":42},
	    {"name":"extra_no_default_field","type":"long"},
	    {"name":"fixed_length_mismatch_field","type":{"type":"fixed","name":"fixed_length_mismatch_type","size":4}},
	    {"name":"union_missing_branches_field","type":["boolean"]},
	    {"name":"reader_union_does_not_support_type_field","type":["boolean"]},
	    {"name":"record_fqn_mismatch_field","type":{"type":"record","name":"recordA","namespace":"not_nsA","fields":[
	      {"name":"A_field_0","type":"boolean","default":true},
	      {"name":"array_type_mismatch_field","type":{"type":"array","items":"string"}}]}}]}}]}`
	writer := `{"type":"record","name":"base","fields":[
	  {"name":"check_enum_symbols_field","type":{"type":"enum","name":"check_enum_symbols_type","symbols":["A","B","C","D"]}},
	  {"name":"check_enum_name_field","type":{"type":"enum","name":"check_enum_name_type_ERR","symbols":["A","B","C","D"]}},
	  {"name":"type_mismatch_field","type":"long"},
	  {"name":"sub_record","type":{"type":"record","name":"sub_record_type","fields":[
	    {"name":"identical_1_field","type":"long","default":42},
	    {"name":"fixed_length_mismatch_field","type":{"type":"fixed","name":"fixed_length_mismatch_type","size":8}},
	    {"name":"union_missing_branches_field","type":["boolean","double","string"]},
	    {"name":"reader_union_does_not_support_type_field","type":"long"},
	    {"name":"record_fqn_mismatch_field","type":{"type":"record","name":"recordA","namespace":"nsA","fields":[
	      {"name":"A_field_0","type":"boolean","default":true},
	      {"name":"array_type_mismatch_field","type":{"type":"array","items":"boolean"}}]}}]}}]}`
	want := []string{
		"MISSING_ENUM_SYMBOLS /fields/0/type/symbols [B, D]",
		"NAME_MISMATCH /fields/1/type/name expected: check_enum_name_type_ERR",
		"TYPE_MISMATCH /fields/2/type reader type: STRING not compatible with writer type: LONG",
		"READER_FIELD_MISSING_DEFAULT_VALUE /fields/3/type/fields/1 extra_no_default_field",
		"FIXED_SIZE_MISMATCH /fields/3/type/fields/2/type/size expected: 8, found: 4",
		"MISSING_UNION_BRANCH /fields/3/type/fields/3/type/1 reader union lacking writer type: DOUBLE",
		"MISSING_UNION_BRANCH /fields/3/type/fields/3/type/2 reader union lacking writer type: STRING",
		"MISSING_UNION_BRANCH /fields/3/type/fields/4/type reader union lacking writer type: LONG",
		"TYPE_MISMATCH /fields/3/type/fields/5/type/fields/1/type/items reader type: STRING not compatible with writer type: BOOLEAN",
	}
	res := Check(mustParse(t, reader), mustParse(t, writer))
	if got := incs(res); !reflect.DeepEqual(got, want) {
		t.Errorf("got:\n%q\nwant:\n%q", got, want)
	}
}
