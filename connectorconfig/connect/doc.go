// Package connect is a client for the Kafka Connect REST API, as a deploy
// tool uses it.
//
// Start with [NewClient] and the [Client] methods: [Client.ServerInfo] (the
// worker version, to gate features), [Client.ListConnectorsExpanded] (every
// connector with its config and status in one call), [Client.PutConfig]
// (create-or-update), [Client.CreateConnector] (POST with an initial state,
// Connect 3.7+), [Client.Status], the state verbs ([Client.Pause],
// [Client.Resume], [Client.Stop], [Client.Restart]), the KIP-875 offset calls
// and [Client.ValidateConfig].
//
// Errors: every non-2xx answer is an [*APIError] carrying the HTTP status
// (Status), Connect's error_code (Code, 0 when the body has none) and
// message, and the request (Method, URL); it is the type the registry
// client's APIError shares (one per service for errors.As). It unwraps to [ErrNotFound] (404),
// [ErrConflict] (409), [ErrBadRequest] (400) so that callers can write
// errors.Is(err, connect.ErrNotFound). A connection that cannot be made is an
// [*UnreachableError] that unwraps to [ErrUnreachable] and names the URL.
// A request that gets no complete answer within the request timeout
// ([WithRequestTimeout], default 30 s) is a [*TimeoutError] ([ErrTimeout],
// "timed out after 30s"), never "unreachable". Answers are read up to
// [WithMaxAnswerSize] ([ErrAnswerTooLarge]), and 2xx answers of the wrong
// shape (not JSON, a status without connector.state, a validation result
// without configs) are a [*BadAnswerError] ([ErrBadAnswer]). Credentials in
// the URL are masked in every error.
//
// A 409 on a write is what Connect answers while the group rebalances ("Cannot
// complete request momentarily due to stale configuration", "no known leader
// URL"). The client retries those with a bounded exponential backoff
// ([WithRetry]); a 409 that is a real conflict (POST of a connector that
// already exists) is returned at once.
//
// The HTTP plumbing (authentication, TLS, transport, timeouts, the error
// body and the error types of a request without an answer) is shared with
// the Schema Registry client (internal/httpclient), and so are the option
// names, with one meaning each: [WithCallTimeout] bounds a whole call
// (409 retries included; none by default), [WithRequestTimeout] each
// request; [WithTLS] takes files ([TLSConfig], the registry's type too),
// [WithTLSConfig] a ready *tls.Config. [*UnreachableError] and
// [*TimeoutError] are this package's instances of the shared types, so
// errors.As tells them from the registry's.
//
// The package does not read flags or the environment and never prints: the
// CLI builds the client from its settings. Package connectfake is a fake
// worker for tests, built like the registry's srfake: connectfake.New(opts...).
package connect
