// Package schemas is the schema workflow behind `outboxctl schema`: it
// names a spec's Avro event types, reads their schema files, and checks and
// registers the schemas.
//
//   - Naming: Event names an event type's major version (record full name,
//     registry subject under a Strategy, schema file name; SchemaFileName,
//     ParseSchemaFileName, SubjectName).
//   - Catalog: BuildCatalog reads and parses every schema file of a spec's
//     avro event types into a Catalog of CatalogEntry (one per subject and
//     major version).
//   - Check: CheckCatalog checks every entry against Baselines (a git ref,
//     GitBaseline; a folder, DirBaseline; the live registry,
//     RegistryBaseline) with Avro Java's and Confluent's compatibility
//     rules, honouring an accepted-breaks file (LoadAcceptedBreaks). Each
//     CheckResult carries the schema's Fingerprint (the hex of
//     avro.Fingerprint64); a CheckReport prints as text (WriteText),
//     Markdown (WriteMarkdown) or findings (Findings).
//   - Register: RegisterCatalog and Register register the schemas (or plan
//     to, with DryRun) in the Schema Registry.
//
// The Avro machinery is in the subpackages: avro (the structural parser,
// Parsing Canonical Form and its fingerprint), compat (the compatibility
// checker), resolve and avrobind (writer-to-reader resolution, used by the
// consumer SDK), naming (the subject naming rules), registry (the Schema
// Registry client) and wire (the Confluent wire format).
package schemas
