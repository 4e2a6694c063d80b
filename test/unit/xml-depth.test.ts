import test from 'ava';
import { xmlDepth, xmlNestsDeeperThan } from '../../workflows/outbound/xml-depth.ts';

test('elements nest; self-closing elements and closed siblings add nothing', (t) => {
  t.is(xmlDepth('<a/>'), 0);
  t.is(xmlDepth('<a></a>'), 1);
  t.is(xmlDepth('<a><b/><c><d>x</d></c><e></e></a>'), 3);
  t.is(
    xmlDepth('<?xml version="1.0"?><s:Envelope xmlns:s="urn:x"><s:Body><p:Price>1</p:Price></s:Body></s:Envelope>'),
    3,
  );
});

test('comments, CDATA, processing instructions and the DOCTYPE are not counted as elements', (t) => {
  t.is(xmlDepth('<a><!-- <b><c><d> --></a>'), 1);
  t.is(xmlDepth('<a><![CDATA[<b><c><d>]]></a>'), 1);
  t.is(xmlDepth('<a><?pi <b><c>?></a>'), 1);
  t.is(
    xmlDepth('<!DOCTYPE a [<!ELEMENT a ANY><!ENTITY e "<b><c>"><!-- ]> --><!ATTLIST a x CDATA "]>">]><a>&e;</a>'),
    1,
  );
});

test('a ">" inside a quoted attribute value does not end the tag', (t) => {
  t.is(xmlDepth('<a x="1>2" y=\'<b>\'><c/></a>'), 1);
  t.is(xmlDepth('<a x="/"><b></b></a>'), 2);
});

test('closing more elements than were opened makes no room for deeper nesting later', (t) => {
  t.true(xmlNestsDeeperThan(`${'</a>'.repeat(50)}${'<b>'.repeat(60)}`, 40));
});

test('a construct that never ends stops the count where it starts', (t) => {
  t.is(xmlDepth('<a><b x="never closed><c><d><e>'), 1);
  t.is(xmlDepth('<a><!-- never closed <b><c>'), 1);
  t.is(xmlDepth(`<a>${'<b'.repeat(10)}`), 1);
});

test('nesting beyond the limit is reported, and the count stops there', (t) => {
  const deep = `${'<a>'.repeat(101)}${'</a>'.repeat(101)}`;
  t.true(xmlNestsDeeperThan(deep, 100));
  t.false(xmlNestsDeeperThan(deep, 101));
  t.is(xmlDepth('<a>'.repeat(1000), 100), 101);
});

// Upstream answers are hostile at times. These shapes made the old regular
// expression retry from every '<' (quadratic): 1 MiB of them took minutes.
test('1 MiB answers of tags, attributes or closings that never end are judged in one pass', (t) => {
  const MiB = 1024 * 1024;
  t.is(xmlDepth('<a'.repeat(MiB / 2)), 0);
  t.is(xmlDepth('</a'.repeat(MiB / 3)), 0);
  t.is(xmlDepth(`<a${' b="x"'.repeat(MiB / 6)}`), 0);
  t.is(xmlDepth(`<a${' b="x'.repeat(MiB / 5)}`), 0);
  t.true(xmlNestsDeeperThan('<a>'.repeat(MiB / 3), 100));
});
