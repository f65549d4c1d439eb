import type { Schema, Struct } from '@strapi/strapi';

export interface SectionsCallToAction extends Struct.ComponentSchema {
  collectionName: 'components_sections_calls_to_action';
  info: {
    description: 'A short invitation and the link that acts on it.';
    displayName: 'Call to action';
    icon: 'cursor';
  };
  attributes: {
    link: Schema.Attribute.Component<'shared.link', false> & Schema.Attribute.Required;
    style: Schema.Attribute.Enumeration<['primary', 'secondary', 'subtle']> &
      Schema.Attribute.Required &
      Schema.Attribute.DefaultTo<'primary'>;
    text: Schema.Attribute.String &
      Schema.Attribute.Required &
      Schema.Attribute.SetMinMaxLength<{
        maxLength: 200;
      }>;
  };
}

export interface SectionsHero extends Struct.ComponentSchema {
  collectionName: 'components_sections_heroes';
  info: {
    description: 'The large opening banner of a page: heading, image and one call to action.';
    displayName: 'Hero';
    icon: 'picture';
  };
  attributes: {
    cta: Schema.Attribute.Component<'shared.link', false>;
    heading: Schema.Attribute.String &
      Schema.Attribute.Required &
      Schema.Attribute.SetMinMaxLength<{
        maxLength: 120;
      }>;
    image: Schema.Attribute.Media<'images'>;
    subheading: Schema.Attribute.Text &
      Schema.Attribute.SetMinMaxLength<{
        maxLength: 300;
      }>;
  };
}

export interface SectionsImageGallery extends Struct.ComponentSchema {
  collectionName: 'components_sections_image_galleries';
  info: {
    description: 'Several images shown as a grid, with one caption.';
    displayName: 'Image gallery';
    icon: 'landscape';
  };
  attributes: {
    caption: Schema.Attribute.String &
      Schema.Attribute.SetMinMaxLength<{
        maxLength: 300;
      }>;
    images: Schema.Attribute.Media<'images', true> & Schema.Attribute.Required;
  };
}

export interface SectionsRelatedEvents extends Struct.ComponentSchema {
  collectionName: 'components_sections_related_events';
  info: {
    description: 'A hand-picked list of events.';
    displayName: 'Related events';
    icon: 'calendar';
  };
  attributes: {
    events: Schema.Attribute.Relation<'oneToMany', 'api::event.event'>;
    heading: Schema.Attribute.String &
      Schema.Attribute.SetMinMaxLength<{
        maxLength: 120;
      }>;
  };
}

export interface SectionsRichText extends Struct.ComponentSchema {
  collectionName: 'components_sections_rich_texts';
  info: {
    description: 'A block of formatted text.';
    displayName: 'Rich text';
    icon: 'layer';
  };
  attributes: {
    body: Schema.Attribute.Blocks & Schema.Attribute.Required;
  };
}

export interface SharedLink extends Struct.ComponentSchema {
  collectionName: 'components_shared_links';
  info: {
    description: 'A labelled link: a path on the same site or a full URL.';
    displayName: 'Link';
    icon: 'link';
  };
  attributes: {
    label: Schema.Attribute.String &
      Schema.Attribute.Required &
      Schema.Attribute.SetMinMaxLength<{
        maxLength: 80;
      }>;
    openInNewTab: Schema.Attribute.Boolean & Schema.Attribute.DefaultTo<false>;
    url: Schema.Attribute.String &
      Schema.Attribute.Required &
      Schema.Attribute.SetMinMaxLength<{
        maxLength: 2048;
      }>;
  };
}

export interface SharedSeo extends Struct.ComponentSchema {
  collectionName: 'components_shared_seos';
  info: {
    description: 'What search engines and link previews show for a page.';
    displayName: 'SEO';
    icon: 'search';
  };
  attributes: {
    keywords: Schema.Attribute.String &
      Schema.Attribute.SetMinMaxLength<{
        maxLength: 255;
      }>;
    metaDescription: Schema.Attribute.Text &
      Schema.Attribute.SetMinMaxLength<{
        maxLength: 160;
      }>;
    metaTitle: Schema.Attribute.String &
      Schema.Attribute.Required &
      Schema.Attribute.SetMinMaxLength<{
        maxLength: 70;
      }>;
    noIndex: Schema.Attribute.Boolean & Schema.Attribute.DefaultTo<false>;
    ogImage: Schema.Attribute.Media<'images'>;
  };
}

declare module '@strapi/strapi' {
  export namespace Public {
    export interface ComponentSchemas {
      'sections.call-to-action': SectionsCallToAction;
      'sections.hero': SectionsHero;
      'sections.image-gallery': SectionsImageGallery;
      'sections.related-events': SectionsRelatedEvents;
      'sections.rich-text': SectionsRichText;
      'shared.link': SharedLink;
      'shared.seo': SharedSeo;
    }
  }
}
