package redact

import "testing"

func TestString(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"plain", "no secrets here", "no secrets here"},
		{"url without credentials", "http://127.0.0.1:8083/connectors", "http://127.0.0.1:8083/connectors"},
		{"url user only", "http://alice@host:8083/x", "http://alice@host:8083/x"},
		{"url with password", "GET http://alice:s3cret@host:8083/connectors: 500", "GET http://alice:" + Mask + "@host:8083/connectors: 500"},
		{"empty user", "https://:pw@host/", "https://:" + Mask + "@host/"},
		{"two urls", "a http://u:p1@h1 b https://v:p2@h2/", "a http://u:" + Mask + "@h1 b https://v:" + Mask + "@h2/"},
		{"jdbc userinfo", "jdbc:postgresql://deb:pw@db:5432/app", "jdbc:postgresql://deb:" + Mask + "@db:5432/app"},
		{"jdbc password param", "jdbc:mysql://db:3306/app?user=deb&password=pw&ssl=true", "jdbc:mysql://db:3306/app?user=deb&password=" + Mask + "&ssl=true"},
		{"jdbc sqlserver", "jdbc:sqlserver://db;user=sa;password=Pw1;encrypt=true", "jdbc:sqlserver://db;user=sa;password=" + Mask + ";encrypt=true"},
		{"jdbc oracle", "jdbc:oracle:thin:scott/tiger@db:1521:orcl", "jdbc:oracle:thin:scott/" + Mask + "@db:1521:orcl"},
		{"already masked", "http://u:" + Mask + "@h", "http://u:" + Mask + "@h"},
		{"placeholder kept", "jdbc:mysql://db/app?password=${file:/s.properties:pw}", "jdbc:mysql://db/app?password=${file:/s.properties:pw}"},
		{"host port path at", "http://host:8083/a@b", "http://host:8083/a@b"},
		{"in json", `{"connection.url":"jdbc:postgresql://u:pw@h/db"}`, `{"connection.url":"jdbc:postgresql://u:` + Mask + `@h/db"}`},
		{"plan mask kept", "jdbc:postgresql://db/o?password=(sensitive) failed", "jdbc:postgresql://db/o?password=(sensitive) failed"},
		{"json escaped ampersand", `"jdbc:mysql://db/app?user=deb\u0026password=pw\u0026ssl=true"`, `"jdbc:mysql://db/app?user=deb\u0026password=` + Mask + `\u0026ssl=true"`},
		{"unencoded at in password", "http://u:p@ss@host:1/x and a@b", "http://u:" + Mask + "@host:1/x and a@b"},
		{"email", "mail alice@example.com", "mail alice@example.com"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := String(tt.in); got != tt.want {
				t.Errorf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"http://user:pw@connect:8083":          "http://user:" + Mask + "@connect:8083",
		"https://user:p%40ss@reg/apis/ccompat": "https://user:" + Mask + "@reg/apis/ccompat",
		"http://connect:8083":                  "http://connect:8083",
		"http://user@connect:8083":             "http://user@connect:8083",
		"not a url":                            "not a url",
	} {
		if got := URL(in); got != want {
			t.Errorf("URL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestHeader(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, value, want string }{
		{"Authorization", "Basic YWxpY2U6czNjcmV0", "Basic " + Mask},
		{"authorization", "Bearer abc.def", "Bearer " + Mask},
		{"Authorization", "opaque", Mask},
		{"Cookie", "session=1", Mask},
		{"Content-Type", "application/json", "application/json"},
		{"Location", "http://u:pw@h/x", "http://u:" + Mask + "@h/x"},
	} {
		if got := Header(tt.name, tt.value); got != tt.want {
			t.Errorf("Header(%q, %q) = %q, want %q", tt.name, tt.value, got, tt.want)
		}
	}
}
