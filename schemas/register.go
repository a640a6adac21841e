package schemas

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/outboxctl/outboxctl/schemas/compat"
	"github.com/outboxctl/outboxctl/schemas/registry"
)

// RegisterItem is one schema to register.
type RegisterItem struct {
	Subject string
	// Schema is the schema text as sent to the registry.
	Schema string
	// File is where the schema comes from (for reports).
	File string
	// References name other subjects; a reference to the subject of
	// another item with Version 0 gets that item's registered version, and
	// that item is registered first.
	References []registry.Reference
	// Entry is the catalog entry, when the item comes from one.
	Entry *CatalogEntry
}

// Action is what Register does (or would do) for one subject.
type Action string

// The actions.
const (
	// ActionCreate: a new subject; its level is set, then version 1 is
	// registered.
	ActionCreate Action = "create"
	// ActionAdd: a new version of an existing subject.
	ActionAdd Action = "add"
	// ActionUnchanged: the schema is already registered; nothing is done.
	ActionUnchanged Action = "unchanged"
	// ActionRefused: the registry refused (or, in a dry run, would refuse)
	// the schema as incompatible or invalid.
	ActionRefused Action = "refused"
)

// RegisterStep is the outcome for one item, in the order of registration.
type RegisterStep struct {
	Subject string `json:"subject"`
	File    string `json:"file,omitempty"`
	Action  Action `json:"action"`
	// SetLevel is the level set on a new subject before its first
	// version ("" when the level was not touched).
	SetLevel string `json:"setLevel,omitempty"`
	// Version and ID are the registered (or existing) version and id; 0
	// for what a dry run would create.
	Version int `json:"version,omitempty"`
	ID      int `json:"id,omitempty"`
	// Error and Messages explain a refusal.
	Error    string   `json:"error,omitempty"`
	Messages []string `json:"messages,omitempty"`
}

// RegisterPlan is the outcome of Register (or, with DryRun, the plan).
type RegisterPlan struct {
	DryRun  bool           `json:"dryRun"`
	Steps   []RegisterStep `json:"steps"`
	Skipped []string       `json:"skipped,omitempty"`
}

// Refused reports whether any step was refused.
func (p *RegisterPlan) Refused() bool {
	for _, s := range p.Steps {
		if s.Action == ActionRefused {
			return true
		}
	}
	return false
}

// Count returns how many steps have action a.
func (p *RegisterPlan) Count(a Action) int {
	n := 0
	for _, s := range p.Steps {
		if s.Action == a {
			n++
		}
	}
	return n
}

// RegisterOptions tune Register.
type RegisterOptions struct {
	// DryRun only reads the registry: lookups and compatibility tests.
	DryRun bool
	// Level is set on every new subject before its first version (default
	// DefaultLevel).
	Level compat.Level
}

// CatalogItems are the register items of the catalog's avro-payload
// entries, and the subjects of the others (skipped).
func CatalogItems(cat *Catalog) (items []RegisterItem, skipped []string) {
	for _, e := range cat.Entries {
		if !e.Registered() {
			skipped = append(skipped, fmt.Sprintf("%s (%s: outbox %q has payloadFormat %s)", e.Subject, e.File, e.Outbox, e.PayloadFormat))
			continue
		}
		items = append(items, RegisterItem{Subject: e.Subject, Schema: string(e.Source), File: e.File, Entry: e})
	}
	return items, skipped
}

// RegisterCatalog registers the catalog's schemas (see Register).
func RegisterCatalog(ctx context.Context, c *registry.Client, cat *Catalog, opts RegisterOptions) (*RegisterPlan, error) {
	items, skipped := CatalogItems(cat)
	plan, err := Register(ctx, c, items, opts)
	if plan != nil {
		plan.Skipped = skipped
	}
	return plan, err
}

// ErrReferenceCycle is returned by Register when items refer to each other
// in a cycle.
var ErrReferenceCycle = errors.New("schema references form a cycle")

// Register registers items in dependency order (referenced subjects
// first). For a new subject it sets the compatibility level first, then
// registers version 1. For an existing subject it looks the schema up
// first: an identical schema creates no version (ActionUnchanged).
// Refusals by the registry (incompatible, invalid) are steps with
// ActionRefused, not errors; the error is for operational failures
// (unreachable, unauthorized), after which the steps done so far are
// returned with it.
func Register(ctx context.Context, c *registry.Client, items []RegisterItem, opts RegisterOptions) (*RegisterPlan, error) {
	if opts.Level == "" {
		opts.Level = DefaultLevel
	}
	ordered, err := orderItems(items)
	if err != nil {
		return nil, err
	}
	plan := &RegisterPlan{DryRun: opts.DryRun, Steps: []RegisterStep{}}
	versions := map[string]int{} // subject → registered version (for references)
	for _, it := range ordered {
		refs := make([]registry.Reference, len(it.References))
		copy(refs, it.References)
		for i := range refs {
			if refs[i].Version == 0 {
				refs[i].Version = versions[refs[i].Subject]
			}
		}
		step, err := registerOne(ctx, c, it, refs, opts)
		if err != nil {
			return plan, err
		}
		versions[it.Subject] = step.Version
		plan.Steps = append(plan.Steps, step)
	}
	return plan, nil
}

func registerOne(ctx context.Context, c *registry.Client, it RegisterItem, refs []registry.Reference, opts RegisterOptions) (RegisterStep, error) {
	step := RegisterStep{Subject: it.Subject, File: it.File}
	_, err := c.Versions(ctx, it.Subject)
	isNew := errors.Is(err, registry.ErrSubjectNotFound)
	if err != nil && !isNew {
		return step, err
	}
	if !isNew {
		found, err := c.Lookup(ctx, it.Subject, it.Schema, refs...)
		if err == nil {
			step.Action, step.Version, step.ID = ActionUnchanged, found.Version, found.ID
			return step, nil
		}
		if !errors.Is(err, registry.ErrSchemaNotFound) {
			return refusal(step, err)
		}
		step.Action = ActionAdd
		if opts.DryRun {
			res, err := c.TestCompatibility(ctx, it.Subject, it.Schema, registry.AllVersions, refs...)
			if err != nil {
				return refusal(step, err)
			}
			if !res.Compatible {
				step.Action = ActionRefused
				step.Error = "incompatible with the subject's versions at its level"
				step.Messages = res.Messages
			}
			return step, nil
		}
	} else {
		step.Action = ActionCreate
		lvl, ok, err := c.SubjectLevel(ctx, it.Subject)
		if err != nil {
			return step, err
		}
		if !ok || lvl != string(opts.Level) {
			step.SetLevel = string(opts.Level)
		}
		if opts.DryRun {
			return step, nil
		}
		if step.SetLevel != "" {
			if err := c.SetLevel(ctx, it.Subject, step.SetLevel); err != nil {
				return step, err
			}
		}
	}
	r, err := c.Register(ctx, it.Subject, it.Schema, refs...)
	if err != nil {
		return refusal(step, err)
	}
	step.Version, step.ID = r.Version, r.ID
	if !r.Created {
		step.Action = ActionUnchanged
	}
	return step, nil
}

// refusal turns a registry refusal into a step; other errors stay errors.
func refusal(step RegisterStep, err error) (RegisterStep, error) {
	if errors.Is(err, registry.ErrIncompatible) || errors.Is(err, registry.ErrInvalidSchema) {
		step.Action = ActionRefused
		step.Error = err.Error()
		return step, nil
	}
	return step, err
}

// orderItems sorts items so that every item comes after the items whose
// subjects it references (stable otherwise).
func orderItems(items []RegisterItem) ([]RegisterItem, error) {
	idx := map[string]int{}
	for i, it := range items {
		idx[it.Subject] = i
	}
	state := make([]int, len(items)) // 0 new, 1 visiting, 2 done
	var out []RegisterItem
	var visit func(i int) error
	visit = func(i int) error {
		switch state[i] {
		case 1:
			return fmt.Errorf("%w at subject %q", ErrReferenceCycle, items[i].Subject)
		case 2:
			return nil
		}
		state[i] = 1
		deps := []int{}
		for _, r := range items[i].References {
			if j, ok := idx[r.Subject]; ok && j != i {
				deps = append(deps, j)
			}
		}
		sort.Ints(deps)
		for _, j := range deps {
			if err := visit(j); err != nil {
				return err
			}
		}
		state[i] = 2
		out = append(out, items[i])
		return nil
	}
	for i := range items {
		if err := visit(i); err != nil {
			return nil, err
		}
	}
	return out, nil
}
