package redact

import (
	"errors"
	"strings"
	"testing"
)

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
		// issue 25 item 1: DSNs
		{"keyword dsn", "host=db user=u password=hunter2XYZ dbname=x", "host=db user=u password=" + Mask + " dbname=x"},
		{"keyword dsn first", "password=hunter2XYZ host=db", "password=" + Mask + " host=db"},
		{"keyword dsn quoted", "host=db password='hun ter\\'2XYZ' dbname=x", "host=db password=" + Mask + " dbname=x"},
		{"keyword dsn spaces", "host=db password = hunter2XYZ", "host=db password = " + Mask},
		{"keyword dsn sslpassword", "host=db sslpassword=hunter2XYZ", "host=db sslpassword=" + Mask},
		{"keyword dsn reference", "host=db password=${env:PG_PW}", "host=db password=${env:PG_PW}"},
		{"keyword dsn no password", "host=db user=u dbname=x", "host=db user=u dbname=x"},
		{"mysql dsn", "root:hunter2XYZ@tcp(127.0.0.1:3306)/", "root:" + Mask + "@tcp(127.0.0.1:3306)/"},
		{"mysql dsn at in password", "root:hun@ter2XYZ@tcp(db:3306)/app?parseTime=true", "root:" + Mask + "@tcp(db:3306)/app?parseTime=true"},
		{"mysql dsn no address", "u:hunter2XYZ@/app", "u:" + Mask + "@/app"},
		{"mysql dsn unix", "u:hunter2XYZ@unix(/tmp/s)/app", "u:" + Mask + "@unix(/tmp/s)/app"},
		{"mysql dsn in text", `dsn "u:hunter2XYZ@tcp(db)/x" failed`, `dsn "u:` + Mask + `@tcp(db)/x" failed`},
		{"mysql dsn no password", "root@tcp(127.0.0.1:13307)/", "root@tcp(127.0.0.1:13307)/"},
		{"jaas", `org.apache.kafka.common.security.scram.ScramLoginModule required username="u" password="hunter2XYZ";`, `org.apache.kafka.common.security.scram.ScramLoginModule required username="u" password="` + Mask + `";`},
		{"jaas placeholder", `ScramLoginModule required username="u" password="${file:/s:pw}";`, `ScramLoginModule required username="u" password="${file:/s:pw}";`},
		{"jaas client secret", `OAuthBearerLoginModule required clientId="c" clientSecret="hunter2XYZ";`, `OAuthBearerLoginModule required clientId="c" clientSecret="` + Mask + `";`},
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
		// issue 25 item 2: a URL that does not parse loses its user info
		"http://bob:hun/ter2XYZ@127.0.0.1:1":    "http://" + Mask + "@127.0.0.1:1",
		"http://bob:hun ter2XYZ@127.0.0.1:1":    "http://" + Mask + "@127.0.0.1:1",
		"http://bob:hunter2XYZ#@127.0.0.1:1":    "http://" + Mask + "@127.0.0.1:1",
		"http://bob:hunter2XYZ@127.0.0.1:x y":   "http://" + Mask + "@127.0.0.1:x y",
		"root@tcp(127.0.0.1:13307)/":            "root@tcp(127.0.0.1:13307)/",
		"bob:hunter2XYZ@127.0.0.1:1":            Mask + "@127.0.0.1:1",
		"http://bob:123/hunter2XYZ@127.0.0.1:1": "http://" + Mask + "@127.0.0.1:1",
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

func TestDSN(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"root:hun ter2XYZ@tcp(db:3306)/app":     "root:" + Mask + "@tcp(db:3306)/app",
		"root:hunter2XYZ@tcp(127.0.0.1:3306)/":  "root:" + Mask + "@tcp(127.0.0.1:3306)/",
		"root@tcp(127.0.0.1:13307)/":            "root@tcp(127.0.0.1:13307)/",
		"host=db user=u password=hunter2XYZ":    "host=db user=u password=" + Mask,
		"postgres://u:hunter2XYZ@db/x":          "postgres://u:" + Mask + "@db/x",
		"postgres://postgres@127.0.0.1:15432/x": "postgres://postgres@127.0.0.1:15432/x",
		"host=/tmp user=u dbname=x":             "host=/tmp user=u dbname=x",
		"root:${env:PW}@tcp(db:3306)/app":       "root:${env:PW}@tcp(db:3306)/app",
	} {
		if got := DSN(in); got != want {
			t.Errorf("DSN(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseURL(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{
		"http://bob:hun/ter2XYZ@127.0.0.1:1",
		"http://bob:hun ter2XYZ@127.0.0.1:1",
		"http://bob:hunter2XYZ#@127.0.0.1:1",
		"http://bob:hunter2XYZ@127.0.0.1:1/%zz",
		"http://bob:hunter2XYZ@[::1",
	} {
		_, err := ParseURL(raw)
		if err == nil {
			t.Errorf("ParseURL(%q): no error", raw)
			continue
		}
		if strings.Contains(err.Error(), "ter2XYZ") || strings.Contains(err.Error(), "hun") || strings.Contains(err.Error(), "bob") {
			t.Errorf("ParseURL(%q): error echoes the user info: %v", raw, err)
		}
		if !errors.Is(err, ErrBadURL) {
			t.Errorf("ParseURL(%q): %v does not wrap ErrBadURL", raw, err)
		}
	}
	if u, err := ParseURL("http://u:p@h:1/x"); err != nil || u.Host != "h:1" {
		t.Errorf("ParseURL of a valid URL = %v, %v", u, err)
	}
}

func TestHasSecret(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]bool{
		"host=db user=u password=hunter2XYZ":    true,
		"root:hunter2XYZ@tcp(127.0.0.1:3306)/":  true,
		"postgres://u:hunter2XYZ@db/x":          true,
		"http://bob:hunter2XYZ@connect:8083":    true,
		"http://bob:hun ter2XYZ@connect:8083":   true,
		"host=db user=u dbname=x":               false,
		"root@tcp(127.0.0.1:3306)/":             false,
		"postgres://u@db/x?sslmode=disable":     false,
		"http://connect:8083":                   false,
		"host=db password=${env:PG_PW}":         false,
		"jdbc:mysql://db/app?password=${env:X}": false,
	} {
		if got := HasSecret(in); got != want {
			t.Errorf("HasSecret(%q) = %v, want %v", in, got, want)
		}
	}
}
