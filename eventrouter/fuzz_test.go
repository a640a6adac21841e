package eventrouter_test

import (
	"strings"
	"testing"

	"github.com/outboxctl/outboxctl/eventrouter"
)

// FuzzRoute: any sample row and payload text through a config with JSON
// expansion and every converter: no panics.
func FuzzRoute(f *testing.F) {
	f.Add(`{"row":{"id":"e1","aggregatetype":"Order","aggregateid":"1","payload":"{\"a\":[1,{\"b\":null}]}"}}`, `(?<v>.*)`)
	f.Add(`{"op":"u","row":{"id":1}}`, `[A-Z]+`)
	f.Add(`{"columns":{"payload":"bytea"},"row":{"id":"e","aggregatetype":"x","aggregateid":null,"payload":"hex:00"}}`, `(a)|(b)`)
	f.Add(`{"row":{"id":"e1","aggregatetype":"Order","aggregateid":"1","payload":"[[1],[2.0],[]]"}}`, `.*`)
	f.Fuzz(func(t *testing.T, row, regex string) {
		sr, err := eventrouter.ParseSampleRow(strings.NewReader(row))
		if err != nil {
			return
		}
		for _, conv := range []string{"org.apache.kafka.connect.json.JsonConverter", "StringConverter", "ByteArrayConverter"} {
			cfg, err := eventrouter.ParseConfig(map[string]string{
				"transforms": "outbox", "transforms.outbox.type": eventrouter.EventRouterClass,
				"transforms.outbox.table.expand.json.payload":         "true",
				"transforms.outbox.route.topic.regex":                 regex,
				"transforms.outbox.table.fields.additional.placement": "type:envelope,aggregateid:header",
				"value.converter": conv, "key.converter": conv, "header.converter": "JsonConverter",
			}, "")
			if err != nil {
				return
			}
			ev, err := sr.ChangeEvent(eventrouter.Postgres)
			if err != nil {
				return
			}
			_, _ = eventrouter.Route(cfg, ev)
		}
		_, _ = eventrouter.NormalizeJSONB(row)
	})
}
