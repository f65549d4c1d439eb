/**
 * Renders a planned image with sharp from an SVG of plain shapes: no text (fonts differ between
 * machines), nothing downloaded, the same bytes for the same plan.
 */
import sharp from 'sharp';
import { createRandom } from '../random';
import type { PlannedImage } from '../plan/types';

const svgOf = (image: PlannedImage): string => {
  const { width: w, height: h, colors } = image;
  const [dark, middle, light] = colors;
  const random = createRandom(image.layoutSeed);
  const shapes: string[] = [];
  const defs: string[] = [];
  switch (image.pattern) {
    case 'gradient': {
      const angle = random.int(0, 359);
      defs.push(
        `<linearGradient id="g" gradientTransform="rotate(${angle} 0.5 0.5)"><stop offset="0" stop-color="${dark}"/><stop offset="0.55" stop-color="${middle}"/><stop offset="1" stop-color="${light}"/></linearGradient>`,
      );
      shapes.push(`<rect width="${w}" height="${h}" fill="url(#g)"/>`);
      break;
    }
    case 'sunrise': {
      defs.push(
        `<linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${dark}"/><stop offset="1" stop-color="${light}"/></linearGradient>`,
      );
      const horizon = Math.round(h * (0.55 + random.next() * 0.2));
      shapes.push(`<rect width="${w}" height="${h}" fill="url(#sky)"/>`);
      shapes.push(`<circle cx="${random.int(w * 0.25, w * 0.75)}" cy="${horizon}" r="${random.int(60, 140)}" fill="${middle}"/>`);
      shapes.push(`<rect y="${horizon}" width="${w}" height="${h - horizon}" fill="${dark}"/>`);
      break;
    }
    case 'circles': {
      shapes.push(`<rect width="${w}" height="${h}" fill="${light}"/>`);
      const count = random.int(5, 9);
      for (let i = 0; i < count; i += 1) {
        const fill = i % 2 === 0 ? dark : middle;
        shapes.push(
          `<circle cx="${random.int(0, w)}" cy="${random.int(0, h)}" r="${random.int(40, Math.min(w, h) / 2)}" fill="${fill}" fill-opacity="0.55"/>`,
        );
      }
      break;
    }
    case 'stripes': {
      shapes.push(`<rect width="${w}" height="${h}" fill="${light}"/>`);
      const band = random.int(40, 90);
      const stripes: string[] = [];
      for (let x = -h, i = 0; x < w + h; x += band, i += 1) {
        stripes.push(
          `<polygon points="${x},0 ${x + band / 2},0 ${x + band / 2 + h},${h} ${x + h},${h}" fill="${i % 2 === 0 ? dark : middle}"/>`,
        );
      }
      shapes.push(...stripes);
      break;
    }
    case 'mosaic': {
      const columns = 8;
      const rows = 6;
      const cw = w / columns;
      const ch = h / rows;
      for (let row = 0; row < rows; row += 1) {
        for (let column = 0; column < columns; column += 1) {
          const x = column * cw;
          const y = row * ch;
          shapes.push(`<polygon points="${x},${y} ${x + cw},${y} ${x},${y + ch}" fill="${random.pick(colors)}"/>`);
          shapes.push(`<polygon points="${x + cw},${y} ${x + cw},${y + ch} ${x},${y + ch}" fill="${random.pick(colors)}"/>`);
        }
      }
      break;
    }
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}"><defs>${defs.join('')}</defs>${shapes.join('')}</svg>`;
};

export const renderImage = async (image: PlannedImage): Promise<Buffer> => {
  const pipeline = sharp(Buffer.from(svgOf(image)));
  return image.format === 'png'
    ? pipeline.png({ compressionLevel: 9 }).toBuffer()
    : pipeline.jpeg({ quality: 82, mozjpeg: true }).toBuffer();
};
