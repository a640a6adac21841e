// Oracle answers the cases of cases.json with Avro Java 1.12.1 (see
// README.md): for "parse" cases it parses the schema as Confluent parses a
// new schema (strict names, defaults validated) or, with mode "lenient", as
// it loads a registered one; for "compat" cases it parses both schemas
// leniently and runs SchemaCompatibility.checkReaderWriterCompatibility.
import com.fasterxml.jackson.databind.*;
import com.fasterxml.jackson.databind.node.*;
import org.apache.avro.*;
import java.io.*;
import java.util.*;

public class Oracle {
  public static void main(String[] args) throws Exception {
    ObjectMapper m = new ObjectMapper();
    JsonNode cases = m.readTree(new File(args[0]));
    ArrayNode out = m.createArrayNode();
    for (JsonNode c : cases) {
      ObjectNode r = m.createObjectNode();
      r.put("id", c.get("id").asText());
      String kind = c.get("kind").asText();
      if (kind.equals("parse")) {
        String mode = c.has("mode") ? c.get("mode").asText() : "strict";
        try {
          Schema s = parse(c.get("schema").asText(), mode);
          r.put("ok", true);
          r.put("canonical", SchemaNormalization.toParsingForm(s));
          r.put("fingerprint", Long.toString(SchemaNormalization.parsingFingerprint64(s)));
          r.put("string", s.toString());
        } catch (Throwable e) {
          r.put("ok", false);
          r.put("error", e.getClass().getSimpleName() + ": " + e.getMessage());
        }
      } else {
        try {
          Schema reader = parse(c.get("reader").asText(), "lenient");
          Schema writer = parse(c.get("writer").asText(), "lenient");
          try {
            SchemaCompatibility.SchemaPairCompatibility res = SchemaCompatibility.checkReaderWriterCompatibility(reader, writer);
            r.put("compatible", res.getType() == SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE);
            ArrayNode incs = r.putArray("incompatibilities");
            for (SchemaCompatibility.Incompatibility i : res.getResult().getIncompatibilities()) {
              incs.add(i.getType() + " " + i.getLocation() + " " + i.getMessage());
            }
          } catch (Throwable e) {
            r.put("compatible", false);
            r.putArray("incompatibilities").add("UNEXPECTED_EXCEPTION  " + e.getMessage());
          }
        } catch (Throwable e) {
          r.put("parseError", e.getClass().getSimpleName() + ": " + e.getMessage());
        }
      }
      out.add(r);
    }
    StringBuilder b = new StringBuilder("[\n");
    for (int i = 0; i < out.size(); i++) {
      b.append(m.writeValueAsString(out.get(i)));
      b.append(i < out.size() - 1 ? ",\n" : "\n");
    }
    b.append("]");
    System.out.println(b);
  }

  static Schema parse(String s, String mode) {
    Schema.Parser p;
    if (mode.equals("strict")) {
      p = new Schema.Parser(NameValidator.STRICT_VALIDATOR);
      p.setValidateDefaults(true);
    } else {
      p = new Schema.Parser(NameValidator.NO_VALIDATION);
      p.setValidateDefaults(false);
    }
    return p.parse(s);
  }
}
