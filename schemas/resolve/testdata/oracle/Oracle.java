// Oracle reads Avro binary data with Avro Java's GenericDatumReader(writer, reader)
// and prints the reader datum with JsonEncoder: the reference the Go
// resolver is compared with (TestJavaOracle). Cases are directories
// <root>/<i>/{w.avsc,r.avsc,d.bin}; one output line per case.
import java.io.*;
import java.nio.file.*;
import org.apache.avro.Schema;
import org.apache.avro.generic.*;
import org.apache.avro.io.*;

public class Oracle {
  public static void main(String[] args) throws Exception {
    Path root = Paths.get(args[0]);
    int n = Integer.parseInt(args[1]);
    PrintStream out = new PrintStream(System.out, true, "UTF-8");
    for (int i = 0; i < n; i++) {
      Path d = root.resolve(Integer.toString(i));
      try {
        Schema w = new Schema.Parser().setValidateDefaults(false).parse(d.resolve("w.avsc").toFile());
        Schema r = new Schema.Parser().setValidateDefaults(false).parse(d.resolve("r.avsc").toFile());
        byte[] data = Files.readAllBytes(d.resolve("d.bin"));
        GenericDatumReader<Object> reader = new GenericDatumReader<>(w, r);
        BinaryDecoder dec = DecoderFactory.get().binaryDecoder(data, null);
        Object v = reader.read(null, dec);
        if (!dec.isEnd()) throw new IOException("trailing bytes");
        ByteArrayOutputStream bo = new ByteArrayOutputStream();
        JsonEncoder enc = EncoderFactory.get().jsonEncoder(r, bo);
        new GenericDatumWriter<Object>(r).write(v, enc);
        enc.flush();
        out.println("OK " + bo.toString("UTF-8").replace("\n", " "));
      } catch (Throwable t) {
        out.println("ERR " + t.getClass().getSimpleName() + ": " + String.valueOf(t.getMessage()).replace("\n", " "));
      }
    }
  }
}
