package eventrouter

import (
	"strings"
	"unicode"
)

// EnumOption is an EventRouter option with a fixed set of values, which
// Debezium reads trimmed and case-insensitively.
type EnumOption struct {
	// Key is the option without the "transforms.<alias>." prefix.
	Key string
	// Values are the accepted values, lower case, in Debezium's order.
	Values []string
	// Default is the value when the key is absent.
	Default string
}

// Lookup returns the value v stands for, and whether it is one of Values:
// v is compared as Debezium and Kafka's ConfigDef do, with Java's
// String.trim and String.equalsIgnoreCase.
func (o EnumOption) Lookup(v string) (string, bool) {
	t := javaTrim(v)
	for _, a := range o.Values {
		if javaEqualsIgnoreCase(t, a) {
			return a, true
		}
	}
	return "", false
}

// javaEqualsIgnoreCase is Java's String.equalsIgnoreCase: characters are
// equal when they are, or their upper cases are, or the lower cases of
// their upper cases are ("falſe" equals "false").
func javaEqualsIgnoreCase(a, b string) bool {
	ra, rb := []rune(a), []rune(b)
	if len(ra) != len(rb) {
		return false
	}
	for i := range ra {
		c1, c2 := ra[i], rb[i]
		if c1 == c2 {
			continue
		}
		u1, u2 := unicode.ToUpper(c1), unicode.ToUpper(c2)
		if u1 != u2 && unicode.ToLower(u1) != unicode.ToLower(u2) {
			return false
		}
	}
	return true
}

// The EventRouter's enum options (Debezium 3.6).
var (
	OptionOpInvalidBehavior   = EnumOption{Key: "table.op.invalid.behavior", Values: []string{"warn", "error", "fatal"}, Default: "warn"}
	OptionAdditionalMissing   = EnumOption{Key: "table.field.additional.missing", Values: []string{"error", "ignore"}, Default: "error"}
	OptionJSONNullBehavior    = EnumOption{Key: "table.json.payload.null.behavior", Values: []string{"ignore", "optional_bytes"}, Default: "ignore"}
	OptionFieldNameAdjustment = EnumOption{Key: "field.name.adjustment.mode", Values: []string{"none", "avro", "avro_unicode"}, Default: "none"}
	OptionTombstoneOnEmpty    = EnumOption{Key: "route.tombstone.on.empty.payload", Values: []string{"true", "false"}, Default: "false"}
	OptionExpandJSONPayload   = EnumOption{Key: "table.expand.json.payload", Values: []string{"true", "false"}, Default: "false"}
	OptionTracingContextOnly  = EnumOption{Key: "tracing.with.context.field.only", Values: []string{"true", "false"}, Default: "true"}
)

// EnumOptions lists the EventRouter options with a fixed set of values,
// booleans included.
func EnumOptions() []EnumOption {
	return []EnumOption{
		OptionOpInvalidBehavior, OptionAdditionalMissing, OptionJSONNullBehavior, OptionFieldNameAdjustment,
		OptionTombstoneOnEmpty, OptionExpandJSONPayload, OptionTracingContextOnly,
	}
}

// PlacementEntry is one comma-separated entry of
// table.fields.additional.placement.
type PlacementEntry struct {
	// Item is the entry as written.
	Item string
	// Parts is the number of ':'-separated parts (Java String.split).
	Parts int
	// Valid is whether Debezium accepts the entry's shape (2 or 3 parts);
	// Field is set only then.
	Valid bool
	// HasAlias is whether the entry names an alias (3 parts).
	HasAlias bool
	// Field is the parsed entry: Column, Raw and Alias trimmed; Placement is
	// PlacementUnknown for a keyword other than header, envelope or
	// partition (Debezium accepts it at start and fails on the first record).
	Field AdditionalField
}

// ParsePlacements splits a table.fields.additional.placement value as
// EventRouterConfigDefinition.parseAdditionalFieldsConfig does: Java
// String.split on "," and then ":" (trailing empty strings dropped, so ""
// is one empty entry and "," none).
func ParsePlacements(value string) []PlacementEntry {
	var out []PlacementEntry
	for _, item := range javaSplit(value, ",") {
		parts := javaSplit(item, ":")
		e := PlacementEntry{Item: item, Parts: len(parts), Valid: len(parts) == 2 || len(parts) == 3, HasAlias: len(parts) == 3}
		if e.Valid {
			f := AdditionalField{Column: strings.TrimSpace(parts[0]), Raw: strings.TrimSpace(parts[1])}
			switch strings.ToLower(f.Raw) {
			case "header":
				f.Placement = PlacementHeader
			case "envelope":
				f.Placement = PlacementEnvelope
			case "partition":
				f.Placement = PlacementPartition
			default:
				f.Placement = PlacementUnknown
			}
			f.Alias = f.Column
			if e.HasAlias {
				f.Alias = strings.TrimSpace(parts[2])
			}
			e.Field = f
		}
		out = append(out, e)
	}
	return out
}
