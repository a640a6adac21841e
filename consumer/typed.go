package consumer

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"github.com/outboxctl/outboxctl/schemas/avro"
	"github.com/outboxctl/outboxctl/schemas/avrobind"
	"github.com/outboxctl/outboxctl/schemas/resolve"
	"github.com/outboxctl/outboxctl/schemas/wire"
)

// AllowUnmappedFields lets the handler's struct have fields that match no
// field of its ReaderSchema (they stay zero). Without it such a field is an
// ErrInvalidConfig at Handle, as is a field whose Go type cannot hold its
// schema type; tag a single field `avro:"-"` to leave just that one out.
func AllowUnmappedFields() HandlerOption {
	return func(o *handlerOptions) error {
		o.allowUnmapped = true
		return nil
	}
}

// checkBinding is the registration check of a handler's payload type
// against its reader schema (when it has one): every struct field must
// match a reader field (unless AllowUnmappedFields), and every Go type must
// hold its schema type. An any or map[string]any part holds anything; a
// type the compiled decoder does not bind at all (ErrUnsupported) is not
// checked: it takes the generic path.
func checkBinding(t reflect.Type, o handlerOptions) error {
	if o.reader == nil {
		return nil
	}
	err := avrobind.Check(o.reader, t, o.allowUnmapped)
	if err == nil || errors.Is(err, avrobind.ErrUnsupported) {
		return nil
	}
	return fmt.Errorf("%w: payload type %s does not fit reader schema %s: %w", ErrInvalidConfig, t, avro.TypeName(o.reader), err)
}

// decodeAvro decodes the Avro datum of m into dst, a pointer to the
// handler's T: with the compiled plan for (writer id, reader, T), or, for
// types the plan does not bind, with resolve and assignAvro. A cached plan
// needs no writer schema lookup.
func (r *Router) decodeAvro(ctx context.Context, m *Message, reader avro.Schema, dst any) error {
	if !r.legacyDecode {
		t := reflect.TypeOf(dst).Elem()
		var loadErr error
		p, err := r.plans.Plan(m.Meta.SchemaID, reader, t, func(int) (avro.Schema, error) {
			w, err := r.writer(ctx, m)
			loadErr = err
			return w, err
		})
		switch {
		case loadErr != nil:
			return loadErr // as writer reports it (ErrSchema)
		case err != nil && !compileError(err):
			return err // the load of another goroutine waiting for the same plan
		case err == nil:
			if err := p.Decode(m.Value[wire.HeaderSize:], dst); err != nil {
				return decodeError(m, fmt.Errorf("avro (schema id %d) into %s: %w", m.Meta.SchemaID, t, err))
			}
			return nil
		case !errors.Is(err, avrobind.ErrUnsupported):
			rn := reader
			if rn == nil {
				if w, werr := r.writer(ctx, m); werr == nil {
					rn = w
				}
			}
			return decodeError(m, fmt.Errorf("writer schema %d to reader %s into %s: %w", m.Meta.SchemaID, typeNameOf(rn), t, err))
		}
	}
	w, err := r.writer(ctx, m)
	if err != nil {
		return err
	}
	if reader == nil {
		reader = w
	}
	res, err := r.cache.Resolver(m.Meta.SchemaID, reader, func(int) (avro.Schema, error) { return w, nil })
	if err != nil {
		return decodeError(m, fmt.Errorf("writer schema %d to reader %s: %w", m.Meta.SchemaID, avro.TypeName(reader), err))
	}
	v, err := res.Decode(m.Value[wire.HeaderSize:])
	if err != nil {
		return decodeError(m, fmt.Errorf("avro (schema id %d): %w", m.Meta.SchemaID, err))
	}
	if err := assignAvro(reader, v, reflect.ValueOf(dst).Elem(), ""); err != nil {
		return decodeError(m, fmt.Errorf("avro into %T: %w", dst, err))
	}
	return nil
}

// compileError reports whether err comes from compiling a plan (rather
// than from loading the writer schema).
func compileError(err error) bool {
	var te *avrobind.TypeError
	var re *resolve.Error
	return errors.As(err, &te) || errors.As(err, &re) || errors.Is(err, avrobind.ErrUnsupported)
}

func typeNameOf(s avro.Schema) string {
	if s == nil {
		return "(the writer schema)"
	}
	return avro.TypeName(s)
}
