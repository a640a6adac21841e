package resolve

import (
	"crypto/sha256"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"sync"

	"github.com/outboxctl/outboxctl/schemas/avro"
)

// Cache holds compiled Resolvers keyed by (writer schema id, reader
// SchemaKey). The writer id is whatever identifies writer schemas for the
// caller, typically the Schema Registry id from the Confluent wire header.
// The reader key is SchemaKey, a SHA-256 of the whole reader schema,
// defaults and aliases included (Parsing Canonical Form, and so
// avro.Fingerprint64, drops both, and both change resolution); it is
// computed once per reader schema value.
//
// The zero Cache is ready to use and safe for concurrent use. A pair is
// compiled once even when many goroutines ask for it at the same time;
// Compile errors are cached too (the same pair always fails the same way),
// errors of the writer loader are not.
type Cache struct {
	entries sync.Map // cacheKey -> *cacheEntry
	keys    sync.Map // avro.Schema -> [32]byte (SchemaKey)
}

type cacheKey struct {
	writerID int
	reader   [32]byte
}

type cacheEntry struct {
	once sync.Once
	r    *Resolver
	err  error
	// loadFailed: the entry is dropped, the next call loads again.
	loadFailed bool
}

// Resolver returns the resolver for data written with the writer schema
// whose id is writerID, read as reader. On a miss it calls loadWriter (for
// example a registry lookup) and Compile.
func (c *Cache) Resolver(writerID int, reader avro.Schema, loadWriter func(id int) (avro.Schema, error)) (*Resolver, error) {
	key := cacheKey{writerID: writerID, reader: c.schemaKey(reader)}
	e, ok := c.entries.Load(key)
	if !ok {
		e, _ = c.entries.LoadOrStore(key, &cacheEntry{})
	}
	ce := e.(*cacheEntry)
	ce.once.Do(func() {
		w, err := loadWriter(writerID)
		if err != nil {
			ce.err, ce.loadFailed = err, true
			c.entries.CompareAndDelete(key, ce)
			return
		}
		ce.r, ce.err = Compile(w, reader)
	})
	return ce.r, ce.err
}

// Decode is Resolver followed by Decode.
func (c *Cache) Decode(writerID int, reader avro.Schema, loadWriter func(id int) (avro.Schema, error), b []byte) (any, error) {
	r, err := c.Resolver(writerID, reader, loadWriter)
	if err != nil {
		return nil, err
	}
	return r.Decode(b)
}

// Len returns the number of cached pairs.
func (c *Cache) Len() int {
	n := 0
	c.entries.Range(func(any, any) bool { n++; return true })
	return n
}

func (c *Cache) schemaKey(s avro.Schema) [32]byte {
	if k, ok := c.keys.Load(s); ok {
		return k.([32]byte)
	}
	k := SchemaKey(s)
	c.keys.Store(s, k)
	return k
}

// SchemaKey is the Cache's key of a reader schema: a SHA-256 over a
// serialization of the whole schema: names, aliases, fields with their
// aliases and defaults, enum symbols and default, fixed sizes, logical
// types. Two schemas with the same key resolve the same way. It is not an
// Avro fingerprint: avro.Fingerprint64 is the specification's fingerprint
// of the Parsing Canonical Form, which leaves out defaults and aliases.
func SchemaKey(s avro.Schema) [32]byte {
	f := &fullForm{seen: map[avro.Schema]bool{}}
	f.schema(s)
	return sha256.Sum256(f.b)
}

// Fingerprint is SchemaKey.
//
// Deprecated: use SchemaKey (the name Fingerprint is avro.Fingerprint64's,
// a different function of a schema).
func Fingerprint(s avro.Schema) [32]byte { return SchemaKey(s) }

type fullForm struct {
	b    []byte
	seen map[avro.Schema]bool
}

func (f *fullForm) str(s string) { f.b = strconv.AppendQuote(f.b, s) }

func (f *fullForm) logical(l *avro.LogicalType) {
	if l == nil {
		return
	}
	f.b = append(f.b, ",logical:"...)
	f.str(l.Name)
	f.b = append(f.b, ',')
	f.b = strconv.AppendInt(f.b, int64(l.Precision), 10)
	f.b = append(f.b, ',')
	f.b = strconv.AppendInt(f.b, int64(l.Scale), 10)
}

func (f *fullForm) names(n *avro.Named) {
	f.str(n.FullName())
	f.b = append(f.b, ",aliases:"...)
	for _, a := range n.Aliases {
		f.str(a)
	}
}

func (f *fullForm) schema(s avro.Schema) {
	if n, ok := s.(avro.NamedSchema); ok {
		if f.seen[s] {
			f.b = append(f.b, "ref:"...)
			f.str(n.FullName())
			return
		}
		f.seen[s] = true
	}
	f.b = append(f.b, '(')
	f.b = append(f.b, s.Type()...)
	f.b = append(f.b, ' ')
	switch t := s.(type) {
	case *avro.Primitive:
		f.logical(t.Logical)
	case *avro.Record:
		f.names(&t.Named)
		for _, fl := range t.Fields {
			f.b = append(f.b, " field:"...)
			f.str(fl.Name)
			for _, a := range fl.Aliases {
				f.str(a)
			}
			f.schema(fl.Type)
			if fl.HasDefault {
				f.b = append(f.b, "default:"...)
				f.value(fl.Default)
			}
		}
	case *avro.Enum:
		f.names(&t.Named)
		for _, sym := range t.Symbols {
			f.str(sym)
		}
		if t.HasDefault {
			f.b = append(f.b, "default:"...)
			f.str(t.Default)
		}
	case *avro.Fixed:
		f.names(&t.Named)
		f.b = strconv.AppendInt(f.b, int64(t.Size), 10)
		f.logical(t.Logical)
	case *avro.Array:
		f.schema(t.Items)
	case *avro.Map:
		f.schema(t.Values)
	case *avro.Union:
		for _, b := range t.Branches {
			f.schema(b)
		}
	}
	f.b = append(f.b, ')')
}

func (f *fullForm) value(v any) {
	switch t := v.(type) {
	case nil:
		f.b = append(f.b, "null"...)
	case bool:
		f.b = strconv.AppendBool(f.b, t)
	case json.Number:
		f.b = append(f.b, 'n')
		f.b = append(f.b, t...)
	case float64:
		f.b = append(f.b, 'f')
		f.b = strconv.AppendUint(f.b, math.Float64bits(t), 16)
	case string:
		f.str(t)
	case []any:
		f.b = append(f.b, '[')
		for _, x := range t {
			f.value(x)
			f.b = append(f.b, ',')
		}
		f.b = append(f.b, ']')
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		f.b = append(f.b, '{')
		for _, k := range keys {
			f.str(k)
			f.b = append(f.b, ':')
			f.value(t[k])
			f.b = append(f.b, ',')
		}
		f.b = append(f.b, '}')
	default:
		f.b = strconv.AppendQuote(f.b, "?")
	}
}
