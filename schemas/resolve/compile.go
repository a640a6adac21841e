package resolve

import (
	"fmt"
	"math/big"
	"strconv"
	"time"

	"github.com/outboxctl/outboxctl/schemas/avro"
)

// conv turns a writer-shaped goavro native value into a reader-shaped one.
// It may modify its argument (goavro hands out fresh values on every
// decode). A nil conv is the identity.
type conv func(v any) (any, error)

// node is the plan for one (writer schema, reader schema) pair.
type node struct {
	fn conv
	// err is set when no datum can be read through this node: the parent
	// fails as well (records, reader unions, promotions). Arrays, maps and
	// writer unions keep such an error lazy: it fires only when a datum
	// actually reaches the element or branch, as in Java.
	err  *Error
	done bool
}

// call returns the function a parent should call for n. For a node still
// being compiled (a recursive type) it goes through the node, so the
// function set later is used.
func (n *node) call() conv {
	if n.done {
		return n.fn
	}
	return func(v any) (any, error) {
		if f := n.fn; f != nil {
			return f(v)
		}
		return v, nil
	}
}

func (n *node) identity() bool { return n.done && n.fn == nil && n.err == nil }

func failed(e *Error) *node { return &node{err: e, done: true} }

func done(fn conv) *node { return &node{fn: fn, done: true} }

type pairKey struct{ w, r avro.Schema }

// compiler builds plans. logical selects the output form: true gives
// goavro's native form for the reader (logical types applied, union keys as
// goavro spells them), false gives the base values and Avro JSON union
// names (the form the JSON encoder takes).
type compiler struct {
	logical    bool
	writerKeys map[avro.NamedSchema]string
	// readerKeys are goavro's names of the reader's named types (only for
	// the native form).
	readerKeys map[avro.NamedSchema]string
	seen       map[pairKey]*node
	// aliases rename the writer's names and fields as Java does before
	// resolving (Schema.applyAliases with the whole reader schema)
	aliases Aliases
}

func newCompiler(logical bool, writerKeys map[avro.NamedSchema]string, writer, reader avro.Schema) *compiler {
	c := &compiler{logical: logical, writerKeys: writerKeys, seen: map[pairKey]*node{}, aliases: NewAliases(writer, reader)}
	if logical {
		c.readerKeys = goavroNames(reader)
	}
	return c
}

// writerKey is the key goavro gives a writer union branch (the writer codec
// has no logical types).
func (c *compiler) writerKey(s avro.Schema) string {
	if n, ok := s.(avro.NamedSchema); ok {
		if k, ok := c.writerKeys[n]; ok {
			return k
		}
		return n.FullName()
	}
	return string(s.Type())
}

// readerKey is the union branch key of a reader branch in the output.
func (c *compiler) readerKey(s avro.Schema) string {
	if n, ok := s.(avro.NamedSchema); ok && c.readerKeys != nil {
		if k, ok := c.readerKeys[n]; ok {
			return k
		}
	}
	if c.logical {
		if p, ok := s.(*avro.Primitive); ok && p.Logical != nil && goavroLogical(p.Kind, p.Logical.Name) {
			if p.Logical.Name == "decimal" {
				return "bytes.decimal"
			}
			return string(p.Kind) + "." + p.Logical.Name
		}
	}
	return avro.TypeName(s)
}

// goavroLogical reports the logical types goavro decodes to Go types.
func goavroLogical(base avro.Type, name string) bool {
	switch base + "." + avro.Type(name) {
	case "int.date", "int.time-millis", "long.time-micros", "long.timestamp-millis",
		"long.timestamp-micros", "bytes.decimal", "fixed.decimal":
		return true
	}
	return false
}

func (c *compiler) compile(w, r avro.Schema, p path) *node {
	if wu, ok := w.(*avro.Union); ok {
		return c.writerUnion(wu, r, p)
	}
	if ru, ok := r.(*avro.Union); ok {
		return c.readerUnion(w, ru, p)
	}
	switch rt := r.(type) {
	case *avro.Primitive:
		wp, ok := w.(*avro.Primitive)
		if !ok {
			return failed(mismatch(w, r, p))
		}
		promote := promotion(wp.Kind, rt.Kind)
		if promote == nil && wp.Kind != rt.Kind {
			return failed(mismatch(w, r, p))
		}
		var logical func(any) any
		if c.logical {
			logical = primitiveLogical(rt)
		}
		switch {
		case promote == nil && logical == nil:
			return done(nil)
		case logical == nil:
			return done(func(v any) (any, error) { return promote(v), nil })
		case promote == nil:
			return done(func(v any) (any, error) { return logical(v), nil })
		default:
			return done(func(v any) (any, error) { return logical(promote(v)), nil })
		}
	case *avro.Record:
		wr, ok := w.(*avro.Record)
		if !ok {
			return failed(mismatch(w, r, p))
		}
		return c.record(wr, rt, p)
	case *avro.Enum:
		we, ok := w.(*avro.Enum)
		if !ok {
			return failed(mismatch(w, r, p))
		}
		return c.enum(we, rt, p)
	case *avro.Fixed:
		wf, ok := w.(*avro.Fixed)
		if !ok {
			return failed(mismatch(w, r, p))
		}
		if !c.namesMatch(wf, rt) {
			return failed(p.with("name").errorf(ErrNameMismatch, "expected: "+wf.FullName()))
		}
		if wf.Size != rt.Size {
			return failed(p.with("size").errorf(ErrFixedSize,
				fmt.Sprintf("expected: %d, found: %d", wf.Size, rt.Size)))
		}
		if c.logical && rt.Logical != nil && rt.Logical.Name == "decimal" {
			scale := rt.Logical.Scale
			return done(func(v any) (any, error) { return decimal(v.([]byte), scale), nil })
		}
		return done(nil)
	case *avro.Array:
		wa, ok := w.(*avro.Array)
		if !ok {
			return failed(mismatch(w, r, p))
		}
		return c.container(c.compile(wa.Items, rt.Items, p.with("items")), false)
	case *avro.Map:
		wm, ok := w.(*avro.Map)
		if !ok {
			return failed(mismatch(w, r, p))
		}
		return c.container(c.compile(wm.Values, rt.Values, p.with("values")), true)
	}
	return failed(mismatch(w, r, p))
}

func mismatch(w, r avro.Schema, p path) *Error {
	return p.errorf(ErrTypeMismatch, fmt.Sprintf("reader type: %s not compatible with writer type: %s",
		r.Type().Upper(), w.Type().Upper()))
}

// promotion returns the conversion of a writer primitive to a reader
// primitive of another type, or nil when there is none (or none is
// needed).
func promotion(w, r avro.Type) func(any) any {
	switch {
	case w == avro.TypeInt && r == avro.TypeLong:
		return func(v any) any { return int64(v.(int32)) }
	case w == avro.TypeInt && r == avro.TypeFloat:
		return func(v any) any { return float32(v.(int32)) }
	case w == avro.TypeInt && r == avro.TypeDouble:
		return func(v any) any { return float64(v.(int32)) }
	case w == avro.TypeLong && r == avro.TypeFloat:
		return func(v any) any { return float32(v.(int64)) }
	case w == avro.TypeLong && r == avro.TypeDouble:
		return func(v any) any { return float64(v.(int64)) }
	case w == avro.TypeFloat && r == avro.TypeDouble:
		return func(v any) any { return float64(v.(float32)) }
	case w == avro.TypeString && r == avro.TypeBytes:
		return func(v any) any { return []byte(v.(string)) }
	case w == avro.TypeBytes && r == avro.TypeString:
		return func(v any) any { return string(v.([]byte)) }
	}
	return nil
}

// promotable reports whether Java's decoder promotes w to r (the second
// pass of its union branch choice).
func promotable(w, r avro.Type) bool { return promotion(w, r) != nil }

// primitiveLogical returns the conversion of a base value to the goavro
// native value of the reader's logical type, or nil.
func primitiveLogical(r *avro.Primitive) func(any) any {
	if r.Logical == nil || !goavroLogical(r.Kind, r.Logical.Name) {
		return nil
	}
	switch r.Logical.Name {
	case "date":
		return func(v any) any {
			return time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, int(v.(int32))).UTC()
		}
	case "time-millis":
		return func(v any) any { return time.Duration(v.(int32)) * time.Millisecond }
	case "time-micros":
		return func(v any) any { return time.Duration(v.(int64)) * time.Microsecond }
	case "timestamp-millis":
		return func(v any) any {
			ms := v.(int64)
			s := ms / 1e3
			return time.Unix(s, (ms-s*1e3)*1e6).UTC()
		}
	case "timestamp-micros":
		return func(v any) any {
			us := v.(int64)
			s := us / 1e6
			return time.Unix(s, (us-s*1e6)*1e3).UTC()
		}
	case "decimal":
		scale := r.Logical.Scale
		return func(v any) any { return decimal(v.([]byte), scale) }
	}
	return nil
}

// decimal reads two's-complement big-endian bytes as a decimal of the
// given scale, as goavro does.
func decimal(b []byte, scale int) *big.Rat {
	n := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(len(b))*8))
	}
	d := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)
	return new(big.Rat).SetFrac(n, d)
}

// namesMatch is Aliases.SameName with the compiler's aliases.
func (c *compiler) namesMatch(w, r avro.NamedSchema) bool { return c.aliases.SameName(w, r) }

func (c *compiler) container(sub *node, isMap bool) *node {
	if sub.err != nil {
		// Lazy: an empty array or map is still readable.
		e := sub.err
		if isMap {
			return done(func(v any) (any, error) {
				if len(v.(map[string]any)) == 0 {
					return v, nil
				}
				return nil, e
			})
		}
		return done(func(v any) (any, error) {
			if len(v.([]any)) == 0 {
				return v, nil
			}
			return nil, e
		})
	}
	if sub.identity() {
		return done(nil)
	}
	f := sub.call()
	if isMap {
		return done(func(v any) (any, error) {
			m := v.(map[string]any)
			for k, x := range m {
				y, err := f(x)
				if err != nil {
					return nil, err
				}
				m[k] = y
			}
			return m, nil
		})
	}
	return done(func(v any) (any, error) {
		a := v.([]any)
		for i, x := range a {
			y, err := f(x)
			if err != nil {
				return nil, err
			}
			a[i] = y
		}
		return a, nil
	})
}

func (c *compiler) enum(w, r *avro.Enum, p path) *node {
	if !c.namesMatch(w, r) {
		return failed(p.with("name").errorf(ErrNameMismatch, "expected: "+w.FullName()))
	}
	same := true
	to := make(map[string]any, len(w.Symbols))
	for _, sym := range w.Symbols {
		switch {
		case r.HasSymbol(sym):
			to[sym] = sym
		case r.HasDefault && r.HasSymbol(r.Default):
			to[sym] = r.Default
			same = false
		default:
			same = false
		}
	}
	if same {
		return done(nil)
	}
	return done(func(v any) (any, error) {
		sym, _ := v.(string)
		if out, ok := to[sym]; ok {
			return out, nil
		}
		return nil, p.errorf(ErrEnumSymbol, fmt.Sprintf("enum symbol %q not in reader and no default", sym))
	})
}

// fieldOp is one step of a record projection.
type fieldOp struct {
	from string // writer field name, "" for a default
	to   string // reader field name
	fn   conv
	def  func() any
}

func (c *compiler) record(w, r *avro.Record, p path) *node {
	key := pairKey{w, r}
	if n, ok := c.seen[key]; ok {
		return n
	}
	n := &node{}
	c.seen[key] = n
	defer func() { n.done = true }()

	// Writer field -> reader field, as Java's decoder does after
	// Schema.applyAliases: the field aliases of the reader record named as
	// the (renamed) writer record rename the writer's fields, so an alias
	// naming a writer field wins over a reader field with that name.
	wname := c.aliases.Name(w.FullName())
	source := map[*avro.Field]*avro.Field{} // reader field -> writer field
	var dropped []string
	for _, wf := range w.Fields {
		rf := r.Field(c.aliases.FieldName(wname, wf.Name))
		if rf == nil {
			dropped = append(dropped, wf.Name)
			continue
		}
		if prev, dup := source[rf]; dup {
			n.err = p.withField(rf.Index, rf.Name).errorf(ErrAmbiguousField,
				fmt.Sprintf("reader field matches writer fields %q and %q", prev.Name, wf.Name))
			return n
		}
		source[rf] = wf
	}

	identity := len(dropped) == 0
	var ops []fieldOp
	writerNames := map[string]bool{}
	for _, wf := range w.Fields {
		writerNames[wf.Name] = true
	}
	collide := false
	for _, rf := range r.Fields {
		fp := p.withField(rf.Index, rf.Name)
		wf := source[rf]
		if wf == nil {
			if !rf.HasDefault {
				n.err = fp.errorf(ErrMissingDefault, "field missing in writer and no default")
				return n
			}
			def, err := c.defaultValue(rf.Type, rf.Default, fp.with("type"))
			if err != nil {
				n.err = err
				return n
			}
			ops = append(ops, fieldOp{to: rf.Name, def: def})
			identity = false
			if writerNames[rf.Name] {
				collide = true
			}
			continue
		}
		sub := c.compile(wf.Type, rf.Type, fp.with("type"))
		if sub.err != nil {
			n.err = sub.err
			return n
		}
		if wf.Name != rf.Name {
			identity = false
			if writerNames[rf.Name] {
				collide = true
			}
		}
		if !sub.identity() {
			identity = false
		}
		if wf.Name != rf.Name || !sub.identity() {
			ops = append(ops, fieldOp{from: wf.Name, to: rf.Name, fn: sub.call()})
		}
	}
	if identity {
		return n
	}
	if collide {
		// Renames onto names the writer also uses: build a new map.
		all := make([]fieldOp, 0, len(r.Fields))
		for _, rf := range r.Fields {
			op := fieldOp{to: rf.Name}
			for _, o := range ops {
				if o.to == rf.Name {
					op = o
				}
			}
			if op.def == nil && op.from == "" {
				op.from = rf.Name
			}
			all = append(all, op)
		}
		size := len(all)
		n.fn = func(v any) (any, error) {
			m := v.(map[string]any)
			out := make(map[string]any, size)
			for _, op := range all {
				if op.def != nil {
					out[op.to] = op.def()
					continue
				}
				x := m[op.from]
				if op.fn != nil {
					var err error
					if x, err = op.fn(x); err != nil {
						return nil, err
					}
				}
				out[op.to] = x
			}
			return out, nil
		}
		return n
	}
	n.fn = func(v any) (any, error) {
		m := v.(map[string]any)
		for _, name := range dropped {
			delete(m, name)
		}
		for i := range ops {
			op := &ops[i]
			if op.def != nil {
				m[op.to] = op.def()
				continue
			}
			x := m[op.from]
			if op.from != op.to {
				delete(m, op.from)
			}
			if op.fn != nil {
				var err error
				if x, err = op.fn(x); err != nil {
					return nil, err
				}
			}
			m[op.to] = x
		}
		return m, nil
	}
	return n
}

func (c *compiler) readerUnion(w avro.Schema, r *avro.Union, p path) *node {
	j := ReaderBranch(w, r, c.aliases)
	if j < 0 {
		return failed(p.errorf(ErrMissingUnionBranch, "reader union lacking writer type: "+w.Type().Upper()))
	}
	b := r.Branches[j]
	sub := c.compile(w, b, p.with(strconv.Itoa(j)))
	if sub.err != nil {
		return failed(sub.err)
	}
	if b.Type() == avro.TypeNull {
		return done(func(any) (any, error) { return nil, nil })
	}
	key := c.readerKey(b)
	f := sub.call()
	if f == nil {
		return done(func(v any) (any, error) { return map[string]any{key: v}, nil })
	}
	return done(func(v any) (any, error) {
		x, err := f(v)
		if err != nil {
			return nil, err
		}
		return map[string]any{key: x}, nil
	})
}

// branchPlan is how one writer union branch is read.
type branchPlan struct {
	key    string // writer key ("" for null)
	fn     conv
	err    *Error
	outKey string // reader union key; "" when the result is not wrapped
	null   bool   // the result is nil
}

func (c *compiler) writerUnion(w *avro.Union, r avro.Schema, p path) *node {
	ru, readerIsUnion := r.(*avro.Union)
	plans := make([]branchPlan, len(w.Branches))
	identity := readerIsUnion
	var choice []int
	if readerIsUnion {
		choice = UnionBranches(w, ru, c.aliases)
	}
	ok := 0
	var firstErr *Error
	for i, wb := range w.Branches {
		bp := branchPlan{key: c.writerKey(wb)}
		if wb.Type() == avro.TypeNull {
			bp.key = ""
		}
		if readerIsUnion {
			j := choice[i]
			if j < 0 {
				bp.err = p.errorf(ErrUnionBranch, fmt.Sprintf("writer union branch %d (%s) not in reader union", i, avro.TypeName(wb)))
			} else {
				rb := ru.Branches[j]
				sub := c.compile(wb, rb, p.with(strconv.Itoa(j)))
				bp.err = sub.err
				bp.fn = sub.call()
				bp.null = rb.Type() == avro.TypeNull
				bp.outKey = c.readerKey(rb)
				if !sub.identity() || bp.outKey != c.writerKey(wb) {
					identity = false
				}
			}
		} else {
			sub := c.compile(wb, r, p)
			bp.err = sub.err
			bp.fn = sub.call()
			bp.null = r.Type() == avro.TypeNull
		}
		if bp.err != nil {
			identity = false
			if firstErr == nil {
				firstErr = bp.err
			}
			if bp.err.Kind != ErrUnionBranch {
				// The schemas are fine as long as no datum takes this
				// branch: the datum, not the schemas, fails.
				bp.err = &Error{Path: bp.err.Path, Field: bp.err.Field, Kind: ErrUnionBranch,
					Msg: fmt.Sprintf("writer union branch %d (%s): %s", i, avro.TypeName(wb), bp.err.Msg)}
			}
		} else {
			ok++
		}
		plans[i] = bp
	}
	if ok == 0 && len(plans) > 0 {
		return failed(firstErr)
	}
	if identity {
		return done(nil)
	}
	return done(func(v any) (any, error) {
		var key string
		var val any
		if v != nil {
			for k, x := range v.(map[string]any) {
				key, val = k, x
			}
		}
		for i := range plans {
			bp := &plans[i]
			if bp.key != key {
				continue
			}
			if bp.err != nil {
				return nil, bp.err
			}
			x := val
			if bp.fn != nil {
				var err error
				if x, err = bp.fn(val); err != nil {
					return nil, err
				}
			}
			switch {
			case bp.null:
				return nil, nil
			case bp.outKey == "":
				return x, nil
			case v != nil:
				m := v.(map[string]any)
				if key != bp.outKey {
					delete(m, key)
				}
				m[bp.outKey] = x
				return m, nil
			default:
				return map[string]any{bp.outKey: x}, nil
			}
		}
		return nil, p.errorf(ErrDecode, fmt.Sprintf("unexpected union value with key %q", key))
	})
}
