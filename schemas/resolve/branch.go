package resolve

import "github.com/outboxctl/outboxctl/schemas/avro"

// FirstMatchingBranch returns the index of the branch of the reader union r
// that a datum of the writer type w (not a union) is read as, or -1 when r
// has none. It is the choice Decode makes (Java's
// ResolvingGrammarGenerator.firstMatchingBranch plus this package's
// deviations, see the package doc), exported so that decoders that bind
// Avro data to other targets (schemas/avrobind) make the very same choice.
// A writer union is resolved branch by branch: call it for each writer
// branch.
func FirstMatchingBranch(r *avro.Union, w avro.Schema) int {
	return newCompiler(false, nil, r).firstMatchingBranch(r, w, path{})
}
