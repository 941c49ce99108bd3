package io.nvmf4j.protocol.fabrics;

import static io.nvmf4j.protocol.Hex.zeros;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.nvmf4j.protocol.ControllerId;
import io.nvmf4j.protocol.Hex;
import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.Nqn;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Vectors from Linux struct nvmf_connect_data {uuid_t hostid; le16 cntlid; char resv4[238];
 * char subsysnqn[256]; char hostnqn[256]; char resv5[256];}.
 */
class ConnectDataTest {

    static final String SUBNQN = "nqn.2014-08.io.a:b";
    static final String SUBNQN_HEX = "6e716e2e323031342d30382e696f2e613a62"; // written out from ASCII
    static final String HOSTNQN = "nqn.2014-08.org.nvmexpress:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6";

    static String paddedField(String hex) {
        return hex + zeros(256 - hex.length() / 2);
    }

    static String expected() {
        String hostNqnHex = HexFormat.of().formatHex(HOSTNQN.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        return "f81d4fae7dec11d0a76500a0c91e6bf6" // HOSTID, uuid_t bytes in text order
                + "ffff"                              // CNTLID FFFFh: dynamic controller
                + zeros(238)
                + paddedField(SUBNQN_HEX)             // bytes 256..511
                + paddedField(hostNqnHex)             // bytes 512..767
                + zeros(256);
    }

    static ConnectData sample() {
        return new ConnectData(UUID.fromString("f81d4fae-7dec-11d0-a765-00a0c91e6bf6"), ControllerId.DYNAMIC,
                Nqn.parse(SUBNQN), Nqn.parse(HOSTNQN));
    }

    @Test
    void connectDataIs1024BytesWithNqnsAt256And512() {
        assertEquals(1024, ConnectData.SIZE);
        assertEquals(16, ConnectData.OFFSET_CNTLID);
        assertEquals(256, ConnectData.OFFSET_SUBNQN);
        assertEquals(512, ConnectData.OFFSET_HOSTNQN);
        assertEquals(1024, Hex.bytes(expected()).length);
    }

    @Test
    void encodesTheBytesLinuxNvmfConnectDataPrepProduces() {
        MemorySegment data = MemorySegment.ofArray(new byte[1024]);
        data.fill((byte) 0x5A);
        sample().encode(data);
        assertEquals(expected(), Hex.of(data));
    }

    @Test
    void decodesFromWireBytes() {
        ConnectData d = ConnectData.decode(Hex.segment(expected()));
        assertEquals(sample(), d);
        assertEquals(ControllerId.DYNAMIC, d.cntlid());
    }

    @Test
    void truncatedDataIsRefused() {
        assertEquals("Connect data needs 1024 bytes, got 1000 (truncated)",
                assertThrows(MalformedStructureException.class,
                        () -> ConnectData.decode(MemorySegment.ofArray(new byte[1000]))).getMessage());
    }

    @Test
    void unterminatedSubsystemNqnNamesItsOffsetForTheConnectResponse() {
        byte[] bytes = Hex.bytes(expected());
        Arrays.fill(bytes, 256, 512, (byte) 'a');
        MalformedStructureException e = assertThrows(MalformedStructureException.class,
                () -> ConnectData.decode(MemorySegment.ofArray(bytes)));
        assertEquals("Connect data SUBNQN (bytes 256..511): NQN field is not NUL-terminated within its 256 bytes",
                e.getMessage());
        assertEquals(256, e.fieldOffset().orElseThrow());
    }

    @Test
    void overLongHostNqnNamesItsOffset() {
        byte[] bytes = Hex.bytes(expected());
        Arrays.fill(bytes, 512, 512 + 240, (byte) 'a');
        MalformedStructureException e = assertThrows(MalformedStructureException.class,
                () -> ConnectData.decode(MemorySegment.ofArray(bytes)));
        assertEquals("Connect data HOSTNQN (bytes 512..767): NQN field holds 240 bytes before its NUL, "
                + "more than the 223 an NQN may have", e.getMessage());
        assertEquals(512, e.fieldOffset().orElseThrow());
    }
}
