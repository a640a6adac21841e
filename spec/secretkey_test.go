package spec

import (
	"strings"
	"testing"
)

func TestIsSecretKey(t *testing.T) {
	t.Parallel()
	for key, want := range map[string]bool{
		"database.password":                        true,
		"database.sslpassword":                     true,
		"producer.override.sasl.jaas.config":       true,
		"producer.override.ssl.key.password":       true,
		"producer.override.ssl.keystore.key":       true,
		"producer.override.ssl.keystore.location":  false,
		"producer.override.ssl.keystore.type":      false,
		"sasl.oauthbearer.token.endpoint.url":      false,
		"database.hostname":                        false,
		"transforms.outbox.table.field.event.type": false,
	} {
		if got := IsSecretKey(key); got != want {
			t.Errorf("IsSecretKey(%q) = %v, want %v", key, got, want)
		}
	}
}

func TestCheckSecretValue(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		key, value string
		ok         bool
	}{
		{"database.sslpassword", "hunter2XYZ", false},
		{"database.sslpassword", "${env:X}", true},
		{"database.sslpassword", "${file:/s.properties:pw}", true},
		{"database.sslpassword", "", true},
		{"producer.override.ssl.key.password", "hunter2XYZ", false},
		{"producer.override.sasl.jaas.config", `ScramLoginModule required username="u" password="hunter2XYZ";`, false},
		{"producer.override.sasl.jaas.config", `ScramLoginModule required username="u" password=hunter2XYZ;`, false},
		{"producer.override.sasl.jaas.config", `OAuthBearerLoginModule required clientId="c" clientSecret="hunter2XYZ";`, false},
		{"producer.override.sasl.jaas.config", `ScramLoginModule required username="u" password="${file:/s.properties:pw}";`, true},
		{"producer.override.sasl.jaas.config", "${file:/s.properties:jaas}", true},
	} {
		err := CheckSecretValue(tc.key, tc.value)
		if (err == nil) != tc.ok {
			t.Errorf("CheckSecretValue(%q, %q) = %v, want ok %v", tc.key, tc.value, err, tc.ok)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2XYZ") {
			t.Errorf("CheckSecretValue(%q): the error holds the value: %v", tc.key, err)
		}
	}
}
