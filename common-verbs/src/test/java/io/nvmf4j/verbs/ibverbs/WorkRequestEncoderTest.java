package io.nvmf4j.verbs.ibverbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.verbs.ReceiveWorkRequest;
import io.nvmf4j.verbs.SendOpcode;
import io.nvmf4j.verbs.SendWorkRequest;
import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The native work requests the provider hands to {@code post_send}/{@code post_recv}, read back at the offsets
 * gcc gives for rdma-core 44's structs (see {@link BindingLayoutTest}) and with the enum values of
 * {@code <infiniband/verbs.h>}: {@code IBV_WR_RDMA_WRITE = 0}, {@code IBV_WR_SEND = 2}, {@code IBV_WR_RDMA_READ = 4},
 * {@code IBV_WR_SEND_WITH_INV = 9}; {@code IBV_SEND_SIGNALED = 2}, {@code IBV_SEND_SOLICITED = 4},
 * {@code IBV_SEND_INLINE = 8}, {@code IBV_SEND_FENCE = 1}. Needs libibverbs installed (the constants come from the bindings class, which opens
 * the libraries); no device.
 */
class WorkRequestEncoderTest {

    @BeforeAll
    @SuppressWarnings("restricted") // FFM: opens a C library; the module is granted native access
    static void needsTheLibraries() {
        for (String soname : new String[] {IbverbsAvailability.VERBS_SONAME, IbverbsAvailability.CM_SONAME}) {
            try (Arena arena = Arena.ofConfined()) {
                SymbolLookup.libraryLookup(soname, arena);
            } catch (IllegalArgumentException e) {
                org.junit.jupiter.api.Assumptions.abort(soname + " is not installed here");
            }
        }
    }

    @Test
    @SuppressWarnings("restricted") // FFM: sizes a pointer returned by C; the module is granted native access
    void rdmaWriteChainedBeforeSendWithInvalidateIsLinkedAndCarriesTheKeyInBothFieldsForSiw() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            WorkRequestEncoder encoder = new WorkRequestEncoder(arena, true, 3, 8, 1, 64, false);
            SendWorkRequest write = new SendWorkRequest(3).wrId(0x1111).opcode(SendOpcode.RDMA_WRITE)
                    .signaled(false).remote(0x7f00_0000_1000L, 0xabcd01);
            write.sgList().count(2);
            write.sgList().get(0).set(0x5000, 512, 0x11);
            write.sgList().get(1).set(0x6000, 1024, 0x22);
            SendWorkRequest response = new SendWorkRequest(1).wrId(0x2222).opcode(SendOpcode.SEND_WITH_INVALIDATE)
                    .solicited(true).invalidateRkey(0x99aa07);
            response.sgList().count(1);
            response.sgList().get(0).set(0x8000, 16, 0x33);
            write.next(response);

            assertEquals(2, encoder.encode(write));

            MemorySegment wrs = encoder.first().reinterpret(2 * 128);
            long second = wrs.address() + 128;
            assertEquals(0x1111, wrs.get(ValueLayout.JAVA_LONG, 0));
            assertEquals(second, wrs.get(ValueLayout.JAVA_LONG, 8), "next of the Write is the Send");
            assertEquals(2, wrs.get(ValueLayout.JAVA_INT, 24), "num_sge");
            assertEquals(0, wrs.get(ValueLayout.JAVA_INT, 28), "IBV_WR_RDMA_WRITE");
            assertEquals(0, wrs.get(ValueLayout.JAVA_INT, 32), "unsignaled: no flags");
            assertEquals(0x7f00_0000_1000L, wrs.get(ValueLayout.JAVA_LONG, 40), "wr.rdma.remote_addr");
            assertEquals(0xabcd01, wrs.get(ValueLayout.JAVA_INT, 48), "wr.rdma.rkey");
            MemorySegment sges = MemorySegment.ofAddress(wrs.get(ValueLayout.JAVA_LONG, 16)).reinterpret(32);
            assertEquals(0x5000, sges.get(ValueLayout.JAVA_LONG, 0));
            assertEquals(512, sges.get(ValueLayout.JAVA_INT, 8));
            assertEquals(0x11, sges.get(ValueLayout.JAVA_INT, 12));
            assertEquals(0x6000, sges.get(ValueLayout.JAVA_LONG, 16));
            assertEquals(1024, sges.get(ValueLayout.JAVA_INT, 24));
            assertEquals(0x22, sges.get(ValueLayout.JAVA_INT, 28));

            assertEquals(0x2222, wrs.get(ValueLayout.JAVA_LONG, 128));
            assertEquals(0, wrs.get(ValueLayout.JAVA_LONG, 128 + 8), "end of chain");
            assertEquals(9, wrs.get(ValueLayout.JAVA_INT, 128 + 28), "IBV_WR_SEND_WITH_INV");
            assertEquals(2 | 4, wrs.get(ValueLayout.JAVA_INT, 128 + 32), "SIGNALED | SOLICITED");
            assertEquals(0x99aa07, wrs.get(ValueLayout.JAVA_INT, 128 + 36), "invalidate_rkey");
            assertEquals(0x99aa07, wrs.get(ValueLayout.JAVA_INT, 128 + 48), "wr.rdma.rkey (rdma-core siw reads it)");
        }
    }

    @Test
    @SuppressWarnings("restricted") // FFM: sizes a pointer returned by C; the module is granted native access
    void onIwarpTheFirstSendOrWriteAfterAReadIsFencedAndNothingElse() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            WorkRequestEncoder iwarp = new WorkRequestEncoder(arena, true, 1, 8, 1, 0, true);
            SendWorkRequest read = new SendWorkRequest().wrId(1).opcode(SendOpcode.RDMA_READ).signaled(false)
                    .remote(0x4000, 0x55);
            read.sgList().count(1).get(0).set(0x1000, 64, 1);
            SendWorkRequest send = new SendWorkRequest().wrId(2).opcode(SendOpcode.SEND);
            send.sgList().count(1).get(0).set(0x2000, 8, 1);
            SendWorkRequest write = new SendWorkRequest().wrId(3).opcode(SendOpcode.RDMA_WRITE).remote(0x5000, 0x66);
            write.sgList().count(1).get(0).set(0x3000, 8, 1);
            read.next(send);
            iwarp.encode(read);
            MemorySegment wrs = iwarp.first().reinterpret(2 * 128);
            assertEquals(0, wrs.get(ValueLayout.JAVA_INT, 32), "the unsignaled Read: no flags (a Read is never fenced)");
            assertEquals(1 | 2, wrs.get(ValueLayout.JAVA_INT, 128 + 32), "the Send behind it: FENCE | SIGNALED");
            read.next(null);
            iwarp.encode(send);
            assertEquals(2, iwarp.first().reinterpret(128).get(ValueLayout.JAVA_INT, 32), "the next Send: no fence");
            iwarp.encode(read);
            iwarp.encode(write);
            assertEquals(1 | 2, iwarp.first().reinterpret(128).get(ValueLayout.JAVA_INT, 32),
                    "a Write after a Read of an earlier post: fenced too");

            WorkRequestEncoder infiniband = new WorkRequestEncoder(arena, true, 1, 8, 1, 0, false);
            read.next(send);
            infiniband.encode(read);
            assertEquals(2, infiniband.first().reinterpret(2 * 128).get(ValueLayout.JAVA_INT, 128 + 32),
                    "InfiniBand/RoCE complete in order: no fence");
        }
    }

    @Test
    @SuppressWarnings("restricted") // FFM: sizes a pointer returned by C; the module is granted native access
    void reusingTheEncoderOverwritesTheFieldsOfTheLastPost() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            WorkRequestEncoder encoder = new WorkRequestEncoder(arena, true, 1, 8, 1, 0, false);
            SendWorkRequest request = new SendWorkRequest().opcode(SendOpcode.SEND_WITH_INVALIDATE).invalidateRkey(7);
            request.sgList().count(1);
            request.sgList().get(0).set(0x1000, 8, 1);
            encoder.encode(request);
            MemorySegment first = encoder.first();
            request.opcode(SendOpcode.RDMA_READ).remote(0x4000, 0x55).wrId(3).inline(true);
            encoder.encode(request);
            MemorySegment wr = encoder.first().reinterpret(128);
            assertEquals(first.address(), wr.address(), "no new memory per post");
            assertEquals(4, wr.get(ValueLayout.JAVA_INT, 28), "IBV_WR_RDMA_READ");
            assertEquals(2, wr.get(ValueLayout.JAVA_INT, 32), "SIGNALED only: inline never applies to a Read");
            assertEquals(0, wr.get(ValueLayout.JAVA_INT, 36), "no stale invalidate_rkey");
            assertEquals(0x4000, wr.get(ValueLayout.JAVA_LONG, 40));
            assertEquals(0x55, wr.get(ValueLayout.JAVA_INT, 48));
        }
    }

    @Test
    @SuppressWarnings("restricted") // FFM: sizes a pointer returned by C; the module is granted native access
    void smallSendMarkedInlineIsPostedInlineWhenTheQueuePairAllowsIt() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            WorkRequestEncoder encoder = new WorkRequestEncoder(arena, true, 1, 4, 1, 64, false);
            SendWorkRequest request = new SendWorkRequest().opcode(SendOpcode.SEND).inline(true);
            request.sgList().count(1);
            request.sgList().get(0).set(0x1000, 64, 1);
            encoder.encode(request);
            assertEquals(2 | 8, encoder.first().reinterpret(128).get(ValueLayout.JAVA_INT, 32));
            request.sgList().get(0).length(65);
            encoder.encode(request);
            assertEquals(2, encoder.first().reinterpret(128).get(ValueLayout.JAVA_INT, 32), "too long for inline");
        }
    }

    @Test
    void rdmaReadIntoMoreSgesThanMaxSgeRdIsRefusedInsteadOfSilentlyCorrupting() {
        try (Arena arena = Arena.ofConfined()) {
            WorkRequestEncoder encoder = new WorkRequestEncoder(arena, true, 4, 8, 1, 0, false);
            SendWorkRequest read = new SendWorkRequest(4).opcode(SendOpcode.RDMA_READ).remote(0x1000, 9);
            read.sgList().count(2);
            VerbsException e = assertThrows(VerbsException.class, () -> encoder.encode(read));
            assertEquals(VerbsErrorCode.INVALID_ARGUMENT, e.code());
            assertTrue(e.getMessage().contains("max_sge_rd"), e.getMessage());
        }
    }

    @Test
    void aChainLongerThanTheQueueIsRefusedWithQueueFull() {
        try (Arena arena = Arena.ofConfined()) {
            WorkRequestEncoder encoder = new WorkRequestEncoder(arena, false, 1, 2, 1, 0, false);
            ReceiveWorkRequest first = new ReceiveWorkRequest();
            first.next(new ReceiveWorkRequest().next(new ReceiveWorkRequest()));
            VerbsException e = assertThrows(VerbsException.class, () -> encoder.encode(first));
            assertEquals(VerbsErrorCode.QUEUE_FULL, e.code());
        }
    }

    @Test
    @SuppressWarnings("restricted") // FFM: sizes a pointer returned by C; the module is granted native access
    void receiveChainIsLinkedWithItsSgeArrays() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            WorkRequestEncoder encoder = new WorkRequestEncoder(arena, false, 2, 64, 1, 0, false);
            ReceiveWorkRequest head = null;
            for (int i = 19; i >= 0; i--) { // longer than the initial 16 slots: the encoder grows once
                ReceiveWorkRequest r = new ReceiveWorkRequest(2).wrId(i).next(head);
                r.sgList().count(1);
                r.sgList().get(0).set(0x10000 + i * 0x100L, 0x100, 0x44);
                head = r;
            }
            assertEquals(20, encoder.encode(head));
            MemorySegment wrs = encoder.first().reinterpret(20 * 32);
            for (int i = 0; i < 20; i++) {
                long base = i * 32L;
                assertEquals(i, wrs.get(ValueLayout.JAVA_LONG, base));
                assertEquals(i == 19 ? 0 : wrs.address() + (i + 1) * 32L, wrs.get(ValueLayout.JAVA_LONG, base + 8));
                assertEquals(1, wrs.get(ValueLayout.JAVA_INT, base + 24));
                MemorySegment sge = MemorySegment.ofAddress(wrs.get(ValueLayout.JAVA_LONG, base + 16)).reinterpret(16);
                assertEquals(0x10000 + i * 0x100L, sge.get(ValueLayout.JAVA_LONG, 0));
                assertEquals(0x100, sge.get(ValueLayout.JAVA_INT, 8));
                assertEquals(0x44, sge.get(ValueLayout.JAVA_INT, 12));
            }
        }
    }
}
