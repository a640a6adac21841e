// Package registry is outboxctl's Schema Registry client: github.com/riferrei/srclient
// (v0.7.4) behind a small API that closes srclient's known gaps, for
// Confluent Schema Registry and Apicurio Registry's Confluent-compatible API
// (ccompat, e.g. http://host:8080/apis/ccompat/v7).
//
// Start with NewClient and Client.Register, Client.History,
// Client.TestCompatibility and Client.SetLevel.
//
//	c, err := registry.NewClient(url, registry.WithBasicAuth(user, pass))
//	_ = c.SetLevel(ctx, subject, "BACKWARD_TRANSITIVE") // before the first version
//	r, err := c.Register(ctx, subject, schemaJSON)      // r.Created false: nothing new
//	if errors.Is(err, registry.ErrIncompatible) { … }
//
// What the wrapper guarantees, and how:
//
//   - No stale "latest": every call uses a fresh srclient client with
//     caching disabled, so nothing is ever cached across calls.
//   - No version 0 after a creation: Register looks the schema up first
//     (an identical schema creates no version and returns Created false)
//     and again after creating it, to return the real version.
//   - No Codec() data race: codec creation is off and *srclient.Schema
//     values never leave the package; callers get plain Schema values.
//   - No lost HTTP status: the transport records every error answer, so
//     errors are *APIError{Status, Code, Message, Op, Method, URL} even
//     for an HTML 502 of a proxy (Code 0 then), the type the Connect
//     client's APIError shares, and unwrap to the sentinels (ErrSubjectNotFound,
//     ErrVersionNotFound, ErrSchemaNotFound, ErrIncompatible,
//     ErrInvalidSchema, ErrInvalidLevel, ErrUnauthorized, …). No answer at
//     all is *UnreachableError (ErrUnreachable, and the context error when
//     the call was cancelled); no answer in time is *TimeoutError
//     (ErrTimeout, context.DeadlineExceeded).
//   - Context and timeouts on every call (srclient has none): each call is
//     bounded by the caller's context and WithCallTimeout (DefaultTimeout;
//     WithTimeout is its deprecated name), each request by
//     WithRequestTimeout; answers by WithMaxAnswerSize. The options mean
//     what the Kafka Connect client's options of the same names mean: the
//     two clients share their HTTP plumbing (internal/httpclient).
//   - Auth (basic, bearer) is set by the package's transport on every
//     request, also on the plain net/http calls below; credentials in the
//     URL are moved to basic auth and never printed. TLS via WithTLS (CA
//     file, client certificate; TLSConfig, the Connect client's type too)
//     or WithTLSConfig (a ready *tls.Config).
//
// What srclient cannot do is done with net/http against the same API:
// TestCompatibility (POST /compatibility/subjects/{s}/versions[/v]?verbose=true,
// with the registry's messages and the all-versions form).
//
// Apicurio differences handled here: GET /config/{s}?defaultToGlobal=true
// answers 40401 for a subject without versions and without its own level
// (Level then asks for the global level), while for a subject with
// versions GET /config/{s} answers the global level even without
// defaultToGlobal (so SubjectLevel cannot tell "not set" there; Register
// only relies on it for new subjects); a permanent delete of a subject that was not
// soft-deleted is HTTP 409 with error code 40405 (mapped by code, so it is
// ErrSubjectNotSoftDeleted, not ErrIncompatible); an unparsable schema is
// 42201 "Failed to discover artifact type from content."; verbose
// compatibility answers carry no messages; ids are shared by identical
// content across subjects, as in Confluent.
//
// Package srfake is an in-memory Confluent registry for tests.
package registry
