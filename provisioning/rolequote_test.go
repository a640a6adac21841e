package provisioning

import (
	"strings"
	"testing"
)

// TestCreateRoleIfMissingQuoting: the owner group's DO block stays one
// dollar-quoted string whatever the name holds ("clihunt_inj$$" once ended
// it early: a syntax error after half the steps were applied).
func TestCreateRoleIfMissingQuoting(t *testing.T) {
	for _, name := range []string{"orders_owner", "clihunt_inj$$_owner", "a$outboxctl$b", "x$outboxctl$y$outboxctl1$z", `q'"$_owner`} {
		sql := createRoleIfMissing(name)
		rest, ok := strings.CutPrefix(sql, "DO ")
		if !ok {
			t.Fatalf("%q: %s", name, sql)
		}
		end := strings.Index(rest[1:], "$")
		tag := rest[:end+2]
		body, ok := strings.CutSuffix(strings.TrimPrefix(rest, tag), tag)
		if !ok || strings.Contains(body, tag) {
			t.Errorf("%q: tag %s occurs inside the body: %s", name, tag, sql)
		}
		if !strings.Contains(body, "CREATE ROLE") {
			t.Errorf("%q: body %s", name, body)
		}
	}
}
