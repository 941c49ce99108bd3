package io.nvmf4j.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class NqnTest {

    private static String failure(String text) {
        return assertThrows(MalformedStructureException.class, () -> Nqn.parse(text)).getMessage();
    }

    private static String nonStandard(String text) {
        return assertThrows(MalformedStructureException.class, () -> Nqn.parseStandard(text)).getMessage();
    }

    @Test
    void acceptsTheThreeSpecForms() {
        assertEquals("nqn.2014-08.com.example:nvme:disk1", Nqn.parse("nqn.2014-08.com.example:nvme:disk1").value());
        assertTrue(Nqn.parse("nqn.2014-08.org.nvmexpress.discovery").isDiscovery());
        assertTrue(Nqn.parse(Nqn.DISCOVERY_VALUE) == Nqn.DISCOVERY);
        Nqn host = Nqn.parse("nqn.2014-08.org.nvmexpress:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6");
        assertEquals(UUID.fromString("f81d4fae-7dec-11d0-a765-00a0c91e6bf6"), host.uuid().orElseThrow());
        assertTrue(Nqn.isValid("nqn.2024-01.io.nvmf4j:subsystem-1"));
    }

    @Test
    void hostNqnsUseTheNvmexpressUuidForm() {
        UUID id = UUID.fromString("00000000-0000-4000-8000-000000000001");
        assertEquals("nqn.2014-08.org.nvmexpress:uuid:00000000-0000-4000-8000-000000000001",
                Nqn.hostNqnFor(id).value());
        Nqn random = Nqn.randomHostNqn();
        assertTrue(Nqn.isValid(random.value()));
        assertEquals(4, random.uuid().orElseThrow().version());
        assertFalse(random.equals(Nqn.randomHostNqn()));
    }

    @Test
    void eachBrokenRuleOfTheStandardFormsHasItsOwnMessage() {
        assertEquals("invalid NQN \"\": empty", nonStandard(""));
        assertEquals("invalid NQN \"iqn.2014-08.com.example:x\": must begin with \"nqn.\"",
                nonStandard("iqn.2014-08.com.example:x"));
        assertTrue(nonStandard("nqn.14-08.com.example:x").endsWith("must be followed by a date code yyyy-mm and a '.' (e.g. nqn.2014-08.)"));
        assertTrue(nonStandard("nqn.2014-13.com.example:x").endsWith("month 13 in the date code is not 01..12"));
        assertTrue(nonStandard("nqn.2014-08.com.example").endsWith("must be followed by ':' and a name chosen by its owner"));
        assertTrue(nonStandard("nqn.2014-08.com.example:").endsWith("nothing follows the ':' after the reverse domain name"));
        assertTrue(nonStandard("nqn.2014-08.:x").endsWith("the reverse domain name after the date code is empty"));
        assertTrue(nonStandard("nqn.2014-08.com..example:x").endsWith("has an empty label"));
        assertTrue(nonStandard("nqn.2014-08.com.-example:x").contains("the label \"-example\""));
        assertTrue(nonStandard("nqn.2014-08.com.9example:x").contains("must start with a letter"));
        assertTrue(nonStandard("nqn.2014-08.org.nvmexpress:uuid:not-a-uuid")
                .endsWith("found \"not-a-uuid\""));
        assertEquals("must begin with \"nqn.\"", Nqn.standardViolation("testnqn"));
        assertEquals("NQN is missing (null)", failure(null));
    }

    @Test
    void anyNameLinuxAcceptsParsesAndSaysWhetherItIsStandard() {
        // nvmetcli's example subsystem; nvme-cli and the kernel connect to it, checking only the length
        Nqn testnqn = Nqn.parse("testnqn");
        assertEquals("testnqn", testnqn.value());
        assertFalse(testnqn.isStandard());
        assertTrue(Nqn.isValid("testnqn"));
        assertFalse(Nqn.isStandard("testnqn"));
        assertTrue(Nqn.parse("nqn.2014-08.com.example:disk").isStandard());
        assertTrue(Nqn.parse(" spaces and UTF-8 \u00e9 ").byteLength() > 0);
        assertTrue(Nqn.parse("nqn.2014-08.org.nvmexpress:uuid:not-a-uuid").uuid().isEmpty());
    }

    @Test
    void whatLinuxRefusesStaysRefused() {
        assertEquals("invalid NQN \"\": empty", failure(""));
        assertEquals("invalid NQN \"a\\x00b\": contains a NUL character at index 1", failure("a\0b"));
        assertTrue(failure("x".repeat(224)).endsWith("224 bytes of UTF-8, more than 223"));
        assertFalse(Nqn.isValid(""));
    }

    @Test
    void lengthIsCountedInUtf8BytesUpTo223() {
        String prefix = "nqn.2014-08.com.example:";
        String fits = prefix + "x".repeat(223 - prefix.length());
        assertEquals(223, Nqn.parse(fits).byteLength());
        assertEquals("224 bytes of UTF-8, more than 223", failure(fits + "x").replaceFirst("^.*\": ", ""));
        // 'é' is two bytes: 199 chars but 224 bytes
        String wide = prefix + "é".repeat(100);
        assertEquals(224, wide.getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
        assertTrue(failure(wide).endsWith("224 bytes of UTF-8, more than 223"));
    }

    @Test
    void encodesIntoA256ByteNulPaddedField() {
        MemorySegment field = MemorySegment.ofArray(new byte[256]);
        field.fill((byte) 0x55); // stale bytes must be cleared
        Nqn.parse("nqn.2014-08.io.a:b").encode(field);
        // n  q  n  .  2  0  1  4  -  0  8  .  i  o  .  a  :  b
        String expected = "6e716e2e323031342d30382e696f2e613a62" + Hex.zeros(256 - 18);
        assertEquals(expected, Hex.of(field));
        assertEquals("nqn.2014-08.io.a:b", Nqn.decode(field).value());
    }

    @Test
    void decodingRefusesBrokenFieldsPrecisely() {
        byte[] full = new byte[256];
        Arrays.fill(full, (byte) 'a');
        assertEquals("NQN field is not NUL-terminated within its 256 bytes",
                assertThrows(MalformedStructureException.class, () -> Nqn.decode(MemorySegment.ofArray(full))).getMessage());

        byte[] tooLong = new byte[256];
        Arrays.fill(tooLong, 0, 230, (byte) 'a');
        assertEquals("NQN field holds 230 bytes before its NUL, more than the 223 an NQN may have",
                assertThrows(MalformedStructureException.class, () -> Nqn.decode(MemorySegment.ofArray(tooLong))).getMessage());

        assertEquals("NQN field needs 256 bytes, got 100 (truncated)",
                assertThrows(MalformedStructureException.class,
                        () -> Nqn.decode(MemorySegment.ofArray(new byte[100]))).getMessage());

        assertEquals("NQN field is empty (first byte is NUL)",
                assertThrows(MalformedStructureException.class,
                        () -> Nqn.decode(MemorySegment.ofArray(new byte[256]))).getMessage());

        byte[] badUtf8 = new byte[256];
        badUtf8[0] = 'n';
        badUtf8[1] = (byte) 0xC3; // lead byte without continuation
        badUtf8[2] = 'x';
        assertEquals("NQN field is not valid UTF-8 (3 bytes)",
                assertThrows(MalformedStructureException.class, () -> Nqn.readField(MemorySegment.ofArray(badUtf8))).getMessage());

        MemorySegment notAnNqn = MemorySegment.ofArray(new byte[256]);
        Nqn.writeField(notAnNqn, "testnqn");
        assertEquals("testnqn", Nqn.readField(notAnNqn)); // lenient read, as Linux nvmet compares names
        assertEquals("testnqn", Nqn.decode(notAnNqn).value()); // a discovery log from nvmet may list it
    }
}
