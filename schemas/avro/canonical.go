package avro

import (
	"strconv"
	"strings"
)

// CanonicalForm returns the Parsing Canonical Form of s (Avro
// specification; Java's SchemaNormalization.toParsingForm): full names,
// only the attributes name, type, fields, symbols, items, values and size in
// that order, no whitespace, primitives bare (logical types dropped), and a
// named type written out at its first use and by full name afterwards.
func CanonicalForm(s Schema) string {
	var b strings.Builder
	canonical(&b, s, map[string]bool{})
	return b.String()
}

func canonical(b *strings.Builder, s Schema, done map[string]bool) {
	switch t := s.(type) {
	case *Union:
		b.WriteByte('[')
		for i, br := range t.Branches {
			if i > 0 {
				b.WriteByte(',')
			}
			canonical(b, br, done)
		}
		b.WriteByte(']')
	case *Array:
		b.WriteString(`{"type":"array","items":`)
		canonical(b, t.Items, done)
		b.WriteByte('}')
	case *Map:
		b.WriteString(`{"type":"map","values":`)
		canonical(b, t.Values, done)
		b.WriteByte('}')
	case NamedSchema:
		name := t.FullName()
		if done[name] {
			b.WriteString(`"` + name + `"`)
			return
		}
		done[name] = true
		b.WriteString(`{"name":"` + name + `","type":"` + string(t.Type()) + `"`)
		switch n := t.(type) {
		case *Enum:
			b.WriteString(`,"symbols":[`)
			for i, sym := range n.Symbols {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(`"` + sym + `"`)
			}
			b.WriteByte(']')
		case *Fixed:
			b.WriteString(`,"size":` + strconv.Itoa(n.Size))
		case *Record:
			b.WriteString(`,"fields":[`)
			for i, f := range n.Fields {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(`{"name":"` + f.Name + `","type":`)
				canonical(b, f.Type, done)
				b.WriteByte('}')
			}
			b.WriteByte(']')
		}
		b.WriteByte('}')
	default:
		b.WriteString(`"` + string(s.Type()) + `"`)
	}
}

// crc64Empty is CRC-64-AVRO's EMPTY, the fingerprint of no bytes.
const crc64Empty uint64 = 0xc15d213aa4d7a795

var crc64Table = func() (t [256]uint64) {
	for i := range t {
		fp := uint64(i)
		for range 8 {
			fp = (fp >> 1) ^ (crc64Empty & -(fp & 1))
		}
		t[i] = fp
	}
	return t
}()

// Rabin is the CRC-64-AVRO (Rabin) fingerprint of data.
func Rabin(data []byte) uint64 {
	fp := crc64Empty
	for _, c := range data {
		fp = (fp >> 8) ^ crc64Table[byte(fp)^c]
	}
	return fp
}

// Fingerprint64 is the CRC-64-AVRO fingerprint of s's Parsing Canonical Form
// (Java's SchemaNormalization.parsingFingerprint64; as a Java long it is
// int64(Fingerprint64(s))).
func Fingerprint64(s Schema) uint64 { return Rabin([]byte(CanonicalForm(s))) }
