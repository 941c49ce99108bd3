package io.nvmf4j.cli.dhchap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.cli.Nvmf4j;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code nvmf4j gen-dhchap-key} / {@code check-dhchap-key} against nvme-cli 2.3's own answers, recorded in the lab
 * guest by {@code interop/guest/dhchap-vectors.sh} ({@code dhchap-vectors.txt}: "nvme ARGS => stdout | stderr: ... |
 * rc=N"). Every recorded line with a fixed secret must give the same stdout (byte for byte), the same message
 * and a failing exit status on the same errors; random ones must have the same shape.
 */
class NvmeCliVectorsTest {

    @TempDir
    Path dir;

    private final Path originalHostNqnFile = GenDhchapKeyCli.hostNqnFile;

    @AfterEach
    void restore() {
        GenDhchapKeyCli.hostNqnFile = originalHostNqnFile;
    }

    record Vector(List<String> args, String stdout, String stderr, int rc, String line) {
    }

    record Result(int rc, String out, String err) {
    }

    static List<String> lines() throws Exception {
        try (InputStream in = NvmeCliVectorsTest.class.getResourceAsStream("/dhchap-vectors.txt")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        }
    }

    static List<Vector> vectors() throws Exception {
        List<Vector> vectors = new ArrayList<>();
        for (String line : lines()) {
            if (line.startsWith("#") || line.isBlank()) {
                continue;
            }
            String[] sides = line.split(" => ", 2);
            List<String> args = new ArrayList<>(Arrays.asList(sides[0].split(" ")));
            args.removeFirst(); // "nvme"
            String[] parts = sides[1].split(" \\| ");
            String stdout = parts[0].strip();
            String stderr = "";
            int rc = 0;
            for (int i = 1; i < parts.length; i++) {
                if (parts[i].startsWith("stderr: ")) {
                    stderr = parts[i].substring("stderr: ".length());
                } else if (parts[i].startsWith("rc=")) {
                    rc = Integer.parseInt(parts[i].substring(3));
                }
            }
            vectors.add(new Vector(args, stdout, stderr, rc, line));
        }
        return vectors;
    }

    /** The guest's /etc/nvme/hostnqn when the vectors were recorded: what "no --nqn" used. */
    static String guestHostNqn() throws Exception {
        return lines().stream().filter(l -> l.startsWith("# /etc/nvme/hostnqn: ")).findFirst().orElseThrow()
                .substring("# /etc/nvme/hostnqn: ".length()).strip();
    }

    static Result run(List<String> args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = Nvmf4j.commandLine(args.toArray(String[]::new));
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int rc = cl.execute(args.toArray(String[]::new));
        return new Result(rc, out.toString(), err.toString());
    }

    static boolean random(Vector v) {
        return v.args().getFirst().equals("gen-dhchap-key") && v.args().stream()
                .noneMatch(a -> a.startsWith("--secret=") || a.equals("-s"));
    }

    @Test
    void everyFixedSecretVectorPrintsWhatNvmeCliPrinted() throws Exception {
        GenDhchapKeyCli.hostNqnFile = Files.writeString(dir.resolve("hostnqn"), guestHostNqn() + "\n");
        int checked = 0;
        for (Vector v : vectors()) {
            if (!v.args().getFirst().equals("gen-dhchap-key") || (random(v) && v.rc() == 0)) {
                continue;
            }
            Result r = run(v.args());
            if (v.rc() == 0) {
                assertEquals(0, r.rc(), v.line() + "\n" + r.err());
                assertEquals(v.stdout() + "\n", r.out(), v.line());
            } else {
                assertEquals(1, r.rc(), v.line());
                assertEquals("", r.out(), v.line());
                assertEquals(v.stderr() + "\n", r.err(), v.line());
            }
            checked++;
        }
        assertEquals(61, checked, "the recorded set: 48 in the matrix and 13 with short options or bad values");
    }

    @Test
    void randomKeysHaveNvmeClisShape() throws Exception {
        GenDhchapKeyCli.hostNqnFile = Files.writeString(dir.resolve("hostnqn"), guestHostNqn() + "\n");
        for (Vector v : vectors()) {
            if (!random(v) || v.rc() != 0) {
                continue;
            }
            Result r = run(v.args());
            assertEquals(0, r.rc(), v.line());
            assertEquals(v.stdout().length() + 1, r.out().length(), v.line() + " -> " + r.out());
            assertEquals(v.stdout().substring(0, 10), r.out().substring(0, 10), v.line());
            assertFalse(r.out().equals(run(v.args()).out()), "random: two runs differ");
        }
    }

    @Test
    void checkDhchapKeyAcceptsWhatNvmeCliAcceptsWithItsLineAndRefusesWhatItRefuses() throws Exception {
        int checked = 0;
        for (Vector v : vectors()) {
            if (!v.args().getFirst().equals("check-dhchap-key")) {
                continue;
            }
            Result r = run(v.args());
            if (v.rc() == 0) {
                assertEquals(v.stdout() + "\n", r.out(), v.line());
            } else {
                assertEquals(1, r.rc(), v.line());
                assertTrue(r.err().startsWith("Invalid key: "), r.err());
                assertFalse(r.err().contains("AAECAwQF"), "never repeats the key: " + r.err());
            }
            checked++;
        }
        assertEquals(18, checked);
    }

    @Test
    void withoutNqnAndWithoutAHostNqnFileAHashedKeyIsRefusedAsNvmeCliDoes() {
        GenDhchapKeyCli.hostNqnFile = dir.resolve("missing");
        Result r = run(List.of("gen-dhchap-key", "--hmac=1"));
        assertEquals(1, r.rc());
        assertEquals("Could not read host NQN\n", r.err());
        assertEquals(0, run(List.of("gen-dhchap-key", "--hmac=0")).rc(), "hmac 0 needs no NQN");
    }
}
