package io.nvmf4j.verbs.softiwarp.mpa;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;

/**
 * Reads one MPA request/reply frame from a non-blocking channel without reading past it (siw_recv_mpa_rr):
 * first the 20-byte header, then exactly the announced private data, so FPDUs that follow stay in the socket.
 */
public final class MpaFrameReader {
    private final ByteBuffer header = ByteBuffer.allocate(MpaFrame.HEADER_LENGTH);
    private ByteBuffer privateData;

    /**
     * Reads what is available.
     *
     * @return the frame once complete, otherwise null
     * @throws MpaException  on a private data length above 512 or an unknown key
     * @throws EOFException  if the peer closed the connection first
     */
    public MpaFrame read(ReadableByteChannel channel) throws IOException, MpaException {
        if (header.hasRemaining()) {
            if (channel.read(header) < 0) {
                throw new EOFException("peer closed the connection during the MPA exchange");
            }
            if (header.hasRemaining()) {
                return null;
            }
            privateData = ByteBuffer.allocate(MpaFrame.privateDataLength(header.array()));
        }
        if (privateData.hasRemaining() && channel.read(privateData) < 0) {
            throw new EOFException("peer closed the connection during the MPA exchange");
        }
        if (privateData.hasRemaining()) {
            return null;
        }
        byte[] frame = new byte[MpaFrame.HEADER_LENGTH + privateData.capacity()];
        System.arraycopy(header.array(), 0, frame, 0, MpaFrame.HEADER_LENGTH);
        System.arraycopy(privateData.array(), 0, frame, MpaFrame.HEADER_LENGTH, privateData.capacity());
        return MpaFrame.decode(frame);
    }
}
