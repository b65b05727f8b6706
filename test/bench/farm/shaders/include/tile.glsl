// Square tiles of 8 << (MODE & 1) pixels over a 1024-pixel-wide image.
const uint kTile = 8u << (MODE & 1);
const uint kWidth = 1024u;

uint TileOf(uint pixel) { return (pixel % kWidth) / kTile + (pixel / kWidth / kTile) * (kWidth / kTile); }
