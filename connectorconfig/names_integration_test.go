//go:build integration

package connectorconfig_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/outboxctl/outboxctl/connectorconfig"
	"github.com/outboxctl/outboxctl/internal/itest"
)

// restPath escapes a connector name as a path segment, spelling "." and
// ".." as %2E so that no client or server resolves them as dot segments.
func restPath(name string) string {
	if name == "." || name == ".." {
		return strings.Repeat("%2E", len(name))
	}
	return url.PathEscape(name)
}

// TestIntegrationConnectorNamesREST asks the real Kafka Connect about
// connectors that do not exist: a name ValidConnectorName accepts gets 404
// (Connect looked it up), one it rejects for the REST API gets 400 before
// any lookup: such a connector could never be configured, inspected or
// deleted through the API.
func TestIntegrationConnectorNamesREST(t *testing.T) {
	st := itest.Require(t, itest.Connect)
	sfx := itest.Suffix()
	names := []string{
		"itest-names-" + sfx, "itest.names_" + sfx, "itest names " + sfx, "itest;names#" + sfx, "itest?" + sfx,
		"itest/" + sfx, "../../itest" + sfx, "itest\\" + sfx, "itest%" + sfx, ".", "..",
	}
	for _, name := range names {
		u := strings.TrimRight(st.ConnectURL, "/") + "/connectors/" + restPath(name) + "/status"
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<10))
		resp.Body.Close()
		valid := connectorconfig.ValidConnectorName(name) == nil
		t.Logf("%q: ValidConnectorName %v, Connect %d", name, valid, resp.StatusCode)
		switch {
		case valid && resp.StatusCode != http.StatusNotFound:
			t.Errorf("%q: valid for ValidConnectorName, but Connect answers %d: %.200s", name, resp.StatusCode, body)
		case !valid && resp.StatusCode != http.StatusBadRequest:
			t.Errorf("%q: ValidConnectorName rejects it, but Connect answers %d: %.200s", name, resp.StatusCode, body)
		}
	}
}

// TestIntegrationConnectorNameControlChars: Connect's validate endpoint
// rejects a name with a control character (and accepts a plain one), as
// ValidConnectorName does.
func TestIntegrationConnectorNameControlChars(t *testing.T) {
	st := itest.Require(t, itest.Connect)
	for _, name := range []string{"itest-plain", "itest\tname", "itest\u0085name"} {
		cfg := map[string]string{
			"connector.class": "io.debezium.connector.postgresql.PostgresConnector",
			"name":            name,
		}
		body, _ := json.Marshal(cfg)
		req, err := http.NewRequest(http.MethodPut, strings.TrimRight(st.ConnectURL, "/")+"/connector-plugins/PostgresConnector/config/validate", strings.NewReader(string(body)))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			Configs []struct {
				Value struct {
					Name   string   `json:"name"`
					Errors []string `json:"errors"`
				} `json:"value"`
			} `json:"configs"`
		}
		err = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("validate %q: HTTP %d, %v", name, resp.StatusCode, err)
		}
		var nameErrs []string
		for _, c := range out.Configs {
			if c.Value.Name == "name" {
				nameErrs = c.Value.Errors
			}
		}
		valid := connectorconfig.ValidConnectorName(name) == nil
		if valid != (len(nameErrs) == 0) {
			t.Errorf("%q: ValidConnectorName valid=%v, Connect's name errors %q", name, valid, nameErrs)
		}
	}
}

// TestIntegrationTopicNames asks the real broker to validate (not create)
// topics: it accepts exactly the names ValidTopicName accepts, and refuses
// a topic that collides with an existing one, as TopicsCollide says.
func TestIntegrationTopicNames(t *testing.T) {
	st := itest.Require(t, itest.Kafka)
	sfx := itest.Suffix()
	admin, err := kafka.NewAdminClient(&kafka.ConfigMap{"bootstrap.servers": st.BootstrapServers})
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	validate := func(topic string) kafka.Error {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		res, err := admin.CreateTopics(ctx, []kafka.TopicSpecification{{Topic: topic, NumPartitions: 1, ReplicationFactor: 1}}, kafka.SetAdminValidateOnly(true))
		if err != nil {
			t.Fatalf("validate topic %.40q: %v", topic, err)
		}
		return res[0].Error
	}
	topics := []string{
		"itest.names." + sfx, "itest_names-" + sfx, strings.Repeat("t", 240) + sfx, strings.Repeat("t", 241) + sfx,
		strings.Repeat("t", 242) + sfx, "itest.names " + sfx, "itest/names" + sfx, "itest.ordér" + sfx, "..",
	}
	for _, topic := range topics {
		kerr := validate(topic)
		valid := connectorconfig.ValidTopicName(topic) == nil
		t.Logf("%.40q (%d chars): ValidTopicName %v, broker %v", topic, len(topic), valid, kerr)
		switch {
		case valid && kerr.Code() != kafka.ErrNoError:
			t.Errorf("%.40q (%d chars): valid for ValidTopicName, broker: %v", topic, len(topic), kerr)
		case !valid && kerr.Code() != kafka.ErrTopicException:
			t.Errorf("%.40q (%d chars): ValidTopicName rejects it, broker: %v", topic, len(topic), kerr)
		}
	}

	existing := "itest.collide." + sfx
	itest.CreateTopic(t, st.BootstrapServers, existing)
	for _, topic := range []string{"itest_collide_" + sfx, "itest.collide_" + sfx, "itest-collide." + sfx} {
		kerr := validate(topic)
		collides := connectorconfig.TopicsCollide(existing, topic)
		t.Logf("%s: TopicsCollide %v, broker %v", topic, collides, kerr)
		switch {
		case collides && (kerr.Code() != kafka.ErrTopicException || !strings.Contains(kerr.String(), "collides")):
			t.Errorf("%s: TopicsCollide with %s, broker: %v", topic, existing, kerr)
		case !collides && kerr.Code() != kafka.ErrNoError:
			t.Errorf("%s: no collision with %s for TopicsCollide, broker: %v", topic, existing, kerr)
		}
	}
}
