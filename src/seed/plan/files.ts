/**
 * The media library of the demo: abstract images (no text, nothing downloaded) and one PDF manual.
 */
import { createRandom, seedOf } from '../random';
import type { ImagePattern, PlannedFile, PlannedImage, PlannedPdf } from './types';

type NamedColor = { name: string; hex: string };

const PALETTE: NamedColor[] = [
  { name: 'midnight blue', hex: '#1e2a4a' },
  { name: 'teal', hex: '#0f766e' },
  { name: 'moss green', hex: '#4d7c0f' },
  { name: 'ochre', hex: '#c2851b' },
  { name: 'coral', hex: '#f0705a' },
  { name: 'plum', hex: '#6b2d5c' },
  { name: 'sky blue', hex: '#5fa8d3' },
  { name: 'sand', hex: '#e9d8a6' },
  { name: 'brick red', hex: '#9b2226' },
  { name: 'lavender', hex: '#a78bfa' },
  { name: 'charcoal', hex: '#2f3437' },
  { name: 'mint', hex: '#95d5b2' },
];

const DESCRIPTION: Record<ImagePattern, string> = {
  gradient: 'A soft gradient',
  sunrise: 'A low sun over a flat horizon',
  circles: 'Overlapping translucent circles',
  stripes: 'Bold diagonal stripes',
  mosaic: 'A mosaic of triangles',
};

const PATTERNS: ImagePattern[] = ['gradient', 'sunrise', 'circles', 'stripes', 'mosaic'];

/** 15 images: 12 JPEG photos-to-be (4:3) and 3 square PNG marks for logos. */
export const IMAGE_COUNT = 15;

const plannedImage = (index: number): PlannedImage => {
  const random = createRandom(seedOf(`image-${index}`));
  const pattern = PATTERNS[index % PATTERNS.length];
  const colors = random.sample(PALETTE, 3);
  const isMark = index >= 12;
  const number = String(index + 1).padStart(2, '0');
  const description = `${DESCRIPTION[pattern]} in ${colors[0].name}, ${colors[1].name} and ${colors[2].name}`;
  return {
    kind: 'image',
    key: `image-${number}`,
    fileName: `seed-${pattern}-${number}.${isMark ? 'png' : 'jpg'}`,
    format: isMark ? 'png' : 'jpeg',
    width: isMark ? 480 : 800,
    height: isMark ? 480 : 600,
    pattern,
    colors: colors.map((color) => color.hex),
    layoutSeed: random.int(1, 2 ** 31),
    alternativeText: `${description}.`,
    caption: `Abstract artwork no. ${index + 1}`,
  };
};

export const IMAGE_KEYS = Array.from({ length: 12 }, (_, index) => `image-${String(index + 1).padStart(2, '0')}`);
export const LOGO_KEYS = ['image-13', 'image-14', 'image-15'];
export const MANUAL_KEY = 'manual';

const manual: PlannedPdf = {
  kind: 'pdf',
  key: MANUAL_KEY,
  fileName: 'seed-product-manual.pdf',
  title: 'Product manual',
  lines: [
    'Thank you for choosing a product from our museum shop.',
    'Keep this manual for future reference.',
    'Questions: shop@culture-hub.example.org',
  ],
  caption: 'Product manual (PDF)',
};

export const planFiles = (): PlannedFile[] => [...Array.from({ length: IMAGE_COUNT }, (_, index) => plannedImage(index)), manual];
